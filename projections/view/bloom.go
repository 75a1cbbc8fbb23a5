package view

import "github.com/cespare/xxhash/v2"

// The rebuild store's filter of the keys it wrote out (bulk.go).

// bloom is a Bloom filter of strings: has is false for every string never
// added, and true for one that was, or now and then (about 1% of the time
// at the number of strings it was made for) for one that was not.
type bloom struct {
	bits []uint64
	n    uint64 // bits
}

// bloomHashes is the number of bits a string sets: at ten bits per string,
// seven make false positives rarest (about 0.8%).
const bloomHashes = 7

func newBloom(strings uint64) *bloom {
	n := strings * 10
	return &bloom{bits: make([]uint64, (n+63)/64), n: n}
}

// spots are the string's bits, by double hashing.
func (b *bloom) spots(s string) (h1, h2 uint64) {
	h := xxhash.Sum64String(s)
	return h, h>>33 | h<<31 | 1
}

func (b *bloom) add(s string) {
	h1, h2 := b.spots(s)
	for i := range uint64(bloomHashes) {
		bit := (h1 + i*h2) % b.n
		b.bits[bit/64] |= 1 << (bit % 64)
	}
}

func (b *bloom) has(s string) bool {
	h1, h2 := b.spots(s)
	for i := range uint64(bloomHashes) {
		bit := (h1 + i*h2) % b.n
		if b.bits[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
