/*
 * sha256.h: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the
 * signature on each stored run (run_sign.h).  No crypto library is linked;
 * this is small, constant in its use of memory, and tested against the
 * FIPS and RFC 4231 vectors.
 *
 * Ownership: struct sha256 is plain data on the caller's stack.
 */
#ifndef RLWRAP_SHA256_H
#define RLWRAP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST 32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t length;               /* bytes hashed so far */
	unsigned char block[SHA256_BLOCK];
	size_t used;                   /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_DIGEST]);

/* HMAC-SHA256 of an incremental message: init with the key, update, final. */
struct hmac_sha256 {
	struct sha256 inner;
	unsigned char outer_pad[SHA256_BLOCK];
};

void hmac_sha256_init(struct hmac_sha256 *h, const void *key, size_t key_len);
void hmac_sha256_update(struct hmac_sha256 *h, const void *data, size_t len);
void hmac_sha256_final(struct hmac_sha256 *h, unsigned char out[SHA256_DIGEST]);

/* Whole-message convenience. */
void hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
    unsigned char out[SHA256_DIGEST]);

#endif
