/* sha256.c: SHA-256 and HMAC-SHA256, written from FIPS 180-4 and RFC 2104. */
#include <string.h>

#include "sha256.h"

static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t
rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void
compress(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8], t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		    w[i - 7] + (rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		t1 = v[7] + (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25)) +
		    ((v[4] & v[5]) ^ (~v[4] & v[6])) + round_constants[i] + w[i];
		t2 = (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t initial[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, initial, sizeof(s->h));
	s->length = 0;
	s->used = 0;
}

void
sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->length += len;
	while (len > 0) {
		size_t n = SHA256_BLOCK - s->used < len ? SHA256_BLOCK - s->used : len;

		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == SHA256_BLOCK) {
			compress(s, s->block);
			s->used = 0;
		}
	}
}

void
sha256_final(struct sha256 *s, unsigned char out[SHA256_DIGEST])
{
	uint64_t bits = s->length * 8;
	unsigned char pad = 0x80, zero = 0, length[8];

	for (int i = 0; i < 8; i++)
		length[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, &pad, 1);
	while (s->used != SHA256_BLOCK - 8)
		sha256_update(s, &zero, 1);
	sha256_update(s, length, sizeof(length));
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
	memset(s, 0, sizeof(*s));
}

void
hmac_sha256_init(struct hmac_sha256 *h, const void *key, size_t key_len)
{
	unsigned char k[SHA256_BLOCK] = { 0 }, inner_pad[SHA256_BLOCK];
	struct sha256 long_key;

	/* A key longer than a block is hashed first (RFC 2104, section 2). */
	if (key_len > SHA256_BLOCK) {
		sha256_init(&long_key);
		sha256_update(&long_key, key, key_len);
		sha256_final(&long_key, k);
	} else if (key_len > 0)
		memcpy(k, key, key_len);
	for (int i = 0; i < SHA256_BLOCK; i++) {
		inner_pad[i] = k[i] ^ 0x36;
		h->outer_pad[i] = k[i] ^ 0x5c;
	}
	sha256_init(&h->inner);
	sha256_update(&h->inner, inner_pad, sizeof(inner_pad));
	memset(k, 0, sizeof(k));
	memset(inner_pad, 0, sizeof(inner_pad));
}

void
hmac_sha256_update(struct hmac_sha256 *h, const void *data, size_t len)
{
	sha256_update(&h->inner, data, len);
}

void
hmac_sha256_final(struct hmac_sha256 *h, unsigned char out[SHA256_DIGEST])
{
	unsigned char inner[SHA256_DIGEST];
	struct sha256 outer;

	sha256_final(&h->inner, inner);
	sha256_init(&outer);
	sha256_update(&outer, h->outer_pad, sizeof(h->outer_pad));
	sha256_update(&outer, inner, sizeof(inner));
	sha256_final(&outer, out);
	memset(h, 0, sizeof(*h));
	memset(inner, 0, sizeof(inner));
}

void
hmac_sha256(const void *key, size_t key_len, const void *data, size_t len, unsigned char out[SHA256_DIGEST])
{
	struct hmac_sha256 h;

	hmac_sha256_init(&h, key, key_len);
	hmac_sha256_update(&h, data, len);
	hmac_sha256_final(&h, out);
}
