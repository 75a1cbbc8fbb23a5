package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/s2"
)

// What a message says (its subject, bodies, headers, attachments, raw
// source) is stored only sealed: compressed, then encrypted with AES-256-GCM
// under a key of its own, which Keys keeps apart from the log. Deleting the
// message erases the key, and with it every copy of the content the data
// directory holds, in whatever block, replica or backup it lies: JetStream
// deletes and purges are logical (the bytes stay in their block until it is
// compacted), and erasing a message in place rewrites its whole block (8 MB,
// about 21 ms measured, docs/BENCHMARKS.md), which per deletion is too slow
// for an inbox that evicts a message on every delivery.
//
// One key seals two things: the content record (one piece) and, for a
// message too large to travel with its event, the raw source in the object
// store (a stream of frames). Each gets its own subkey, so their nonces
// never meet.

const (
	keySize     = 32
	sealVersion = 1
	// rawFrame is the plaintext size of one frame of a sealed raw source.
	rawFrame  = 64 << 10
	lastFrame = 1 << 31
)

var errSealed = errors.New("sealed content does not open with its key")

func subkey(key []byte, use string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(use))
	return m.Sum(nil)
}

func newGCM(key []byte, use string) cipher.AEAD {
	block, err := aes.NewCipher(subkey(key, use))
	if err != nil {
		panic(err) // the key always has keySize bytes
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return gcm
}

// seal compresses and encrypts plaintext under key; messageID is
// authenticated with it, so a sealed record cannot pass for another
// message's. The result is a version byte, a random nonce and the
// ciphertext.
func seal(key []byte, messageID string, plaintext []byte) []byte {
	gcm := newGCM(key, "content")
	// One buffer for all of it: compressed in place after the nonce, then
	// encrypted where it lies (GCM allows its output exactly over its
	// input).
	head := 1 + gcm.NonceSize()
	out := make([]byte, head+s2.MaxEncodedLen(len(plaintext))+gcm.Overhead())
	compressed := s2.Encode(out[head:], plaintext)
	out[0] = sealVersion
	if _, err := rand.Read(out[1:head]); err != nil {
		panic(err)
	}
	return gcm.Seal(out[:head], out[1:head], compressed, []byte(messageID))
}

// unseal reverses seal.
func unseal(key []byte, messageID string, sealed []byte) ([]byte, error) {
	gcm := newGCM(key, "content")
	if len(sealed) < 1+gcm.NonceSize()+gcm.Overhead() || sealed[0] != sealVersion {
		return nil, errSealed
	}
	nonce, ciphertext := sealed[1:1+gcm.NonceSize()], sealed[1+gcm.NonceSize():]
	compressed, err := gcm.Open(nil, nonce, ciphertext, []byte(messageID))
	if err != nil {
		return nil, errSealed
	}
	return s2.Decode(nil, compressed)
}

// sealedReader reads plaintext and yields it sealed as frames: each is the
// frame's ciphertext length (4 bytes, big-endian, the top bit set on the
// last frame) and the ciphertext of up to rawFrame bytes. The nonce counts
// frames; the last frame's mark is also authenticated, so a stream cut
// short does not open.
type sealedReader struct {
	gcm       cipher.AEAD
	messageID string
	src       []byte
	n         uint64 // frames written
	out       []byte // what is sealed and not yet read
	done      bool
}

// NewReader yields a raw source, plaintext, sealed under key as frames
// (sealedReader), for the object store.
func NewReader(key []byte, messageID string, plaintext []byte) io.Reader {
	return &sealedReader{gcm: newGCM(key, "raw"), messageID: messageID, src: plaintext}
}

func frameAAD(messageID string, n uint64, last bool) []byte {
	aad := binary.BigEndian.AppendUint64([]byte(messageID), n)
	if last {
		return append(aad, 1)
	}
	return append(aad, 0)
}

func frameNonce(gcm cipher.AEAD, n uint64) []byte {
	nonce := make([]byte, gcm.NonceSize())
	binary.BigEndian.PutUint64(nonce[len(nonce)-8:], n)
	return nonce
}

func (r *sealedReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.done {
			return 0, io.EOF
		}
		chunk := r.src[:min(rawFrame, len(r.src))]
		r.src = r.src[len(chunk):]
		last := len(r.src) == 0
		frame := make([]byte, 4, 4+len(chunk)+r.gcm.Overhead())
		frame = r.gcm.Seal(frame, frameNonce(r.gcm, r.n), chunk, frameAAD(r.messageID, r.n, last))
		size := uint32(len(frame) - 4)
		if last {
			size |= lastFrame
		}
		binary.BigEndian.PutUint32(frame, size)
		r.out, r.n, r.done = frame, r.n+1, last
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// openedReader reads frames written by sealedReader and yields the
// plaintext; a frame that does not open, or a stream that ends before its
// last frame, is an error.
type openedReader struct {
	gcm       cipher.AEAD
	messageID string
	src       io.Reader
	n         uint64
	out       []byte
	done      bool
}

// OpenReader yields the plaintext of the frames NewReader sealed, read
// from src as they come (openedReader).
func OpenReader(key []byte, messageID string, src io.Reader) io.Reader {
	return &openedReader{gcm: newGCM(key, "raw"), messageID: messageID, src: src}
}

func (r *openedReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.done {
			return 0, io.EOF
		}
		var hdr [4]byte
		if _, err := io.ReadFull(r.src, hdr[:]); err != nil {
			return 0, fmt.Errorf("sealed raw message ends early: %w", io.ErrUnexpectedEOF)
		}
		size := binary.BigEndian.Uint32(hdr[:])
		last := size&lastFrame != 0
		size &^= lastFrame
		if size < uint32(r.gcm.Overhead()) || size > rawFrame+uint32(r.gcm.Overhead()) {
			return 0, errSealed
		}
		frame := make([]byte, size)
		if _, err := io.ReadFull(r.src, frame); err != nil {
			return 0, fmt.Errorf("sealed raw message ends early: %w", io.ErrUnexpectedEOF)
		}
		plain, err := r.gcm.Open(frame[:0], frameNonce(r.gcm, r.n), frame, frameAAD(r.messageID, r.n, last))
		if err != nil {
			return 0, errSealed
		}
		r.out, r.n, r.done = plain, r.n+1, last
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// sealedSize is the size of size plaintext bytes sealed as frames.
func sealedSize(size int64) int64 {
	frames := max((size+rawFrame-1)/rawFrame, 1)
	return size + frames*(4+16)
}
