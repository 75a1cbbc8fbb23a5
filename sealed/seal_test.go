package sealed

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
)

func TestSealOpensOnlyWithItsKeyAndMessage(t *testing.T) {
	t.Parallel()
	key, other := randomKey(), randomKey()
	plain := bytes.Repeat([]byte("the quick brown fox "), 500)
	sealed := seal(key, "m1", plain)
	if bytes.Contains(sealed, []byte("quick brown")) {
		t.Fatal("sealed content holds the plaintext")
	}
	if got, err := unseal(key, "m1", sealed); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("unseal: %v", err)
	}
	if _, err := unseal(other, "m1", sealed); err == nil {
		t.Error("opened with another key")
	}
	if _, err := unseal(key, "m2", sealed); err == nil {
		t.Error("opened as another message")
	}
	sealed[len(sealed)/2] ^= 1
	if _, err := unseal(key, "m1", sealed); err == nil {
		t.Error("opened after tampering")
	}
}

func TestSealedRawStreamsInFrames(t *testing.T) {
	t.Parallel()
	key := randomKey()
	for _, size := range []int{0, 1, rawFrame - 1, rawFrame, rawFrame + 1, 5*rawFrame + 17} {
		plain := make([]byte, size)
		_, _ = rand.Read(plain)
		sealed, _ := io.ReadAll(NewReader(key, "m", plain))
		if int64(len(sealed)) != sealedSize(int64(size)) {
			t.Errorf("%d bytes sealed to %d, want %d", size, len(sealed), sealedSize(int64(size)))
		}
		got, err := io.ReadAll(OpenReader(key, "m", bytes.NewReader(sealed)))
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if size > rawFrame {
			// Cut after the first frame: the stream must not pass as whole.
			cut := sealed[:4+rawFrame+16]
			if _, err := io.ReadAll(OpenReader(key, "m", bytes.NewReader(cut))); err == nil {
				t.Errorf("%d bytes cut short opened without an error", size)
			}
		}
	}
}

func randomKey() []byte {
	k := make([]byte, keySize)
	_, _ = rand.Read(k)
	return k
}
