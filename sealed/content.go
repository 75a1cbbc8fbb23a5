package sealed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"tempmail/mailbox"
)

// contentRecord is the head of a message's content as it is sealed: this
// JSON on one line (json.Marshal never writes a raw newline), then the text
// body, the HTML body and the raw message as they are, their lengths in the
// head. Bodies kept out of the JSON are neither escaped when stored nor
// unescaped when read (JSON's string handling was a quarter of a rebuild's
// CPU when views were built from it). The rest of the head is the
// message's summary in this package's own shape (storedcontent.go).
type contentRecord struct {
	Version int `json:"v"`
	TextLen int `json:"text_len,omitempty"`
	HTMLLen int `json:"html_len,omitempty"`
	// PreviewRule is how Preview was made (previewRule); absent in
	// records written before it was recorded, whose previews are made
	// again when read (upgradePreview).
	PreviewRule int `json:"preview_rule,omitempty"`
	storedContent
}

const contentV = 4

func encodeContent(c mailbox.Content) ([]byte, error) {
	if c.Preview == "" {
		c.Preview = previewOf(c)
	}
	head, err := json.Marshal(contentRecord{Version: contentV, TextLen: len(c.Text), HTMLLen: len(c.HTML), PreviewRule: previewRule,
		storedContent: storedOf(&c)})
	if err != nil {
		return nil, err
	}
	data := make([]byte, 0, len(head)+1+len(c.Text)+len(c.HTML)+len(c.Raw))
	data = append(append(append(data, head...), '\n'), c.Text...)
	return append(append(data, c.HTML...), c.Raw...), nil
}

func decodeContent(data []byte) (mailbox.Content, error) {
	head, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return mailbox.Content{}, errors.New("content record without its bodies")
	}
	var rec contentRecord
	if err := json.Unmarshal(head, &rec); err != nil {
		return mailbox.Content{}, err
	}
	if rec.Version != contentV {
		return mailbox.Content{}, fmt.Errorf("content version %d is not supported (this build reads version %d)", rec.Version, contentV)
	}
	if rec.TextLen < 0 || rec.HTMLLen < 0 || rec.TextLen > len(rest) || rec.HTMLLen > len(rest)-rec.TextLen {
		return mailbox.Content{}, fmt.Errorf("content record: bodies of %d and %d bytes in %d", rec.TextLen, rec.HTMLLen, len(rest))
	}
	c := rec.message()
	c.Text = string(rest[:rec.TextLen])
	c.HTML = string(rest[rec.TextLen : rec.TextLen+rec.HTMLLen])
	if rest = rest[rec.TextLen+rec.HTMLLen:]; len(rest) > 0 {
		c.Raw = rest
	}
	if rec.PreviewRule < previewRule {
		upgradePreview(&c)
	}
	return c, nil
}

// Seal is what c says, sealed under key for the message messageID: its
// record (encodeContent), compressed and encrypted (seal). Its raw source,
// when it is too large to travel with its event, is sealed apart
// (NewReader), and c.Raw is then nil.
func Seal(key []byte, messageID string, c mailbox.Content) ([]byte, error) {
	plain, err := encodeContent(c)
	if err != nil {
		return nil, err
	}
	return seal(key, messageID, plain), nil
}

// Open is what Seal sealed: the message's content, opened with key and
// decoded.
func Open(key []byte, messageID string, sealed []byte) (mailbox.Content, error) {
	plain, err := unseal(key, messageID, sealed)
	if err != nil {
		return mailbox.Content{}, err
	}
	return decodeContent(plain)
}
