/* Unit tests for lib/sha256.c and lib/run_sign.c: the FIPS 180-2 examples,
 * RFC 4231's HMAC-SHA256 test cases, and the run signature's key file. */
#include "unit.h"

#include <sys/stat.h>

#include "run_sign.h"
#include "sha256.h"

static void
hex_of(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
check_sha(const char *msg, size_t repeat, const char *want)
{
	struct sha256 s;
	unsigned char d[SHA256_DIGEST];
	char hex[2 * SHA256_DIGEST + 1];

	sha256_init(&s);
	for (size_t i = 0; i < repeat; i++)
		sha256_update(&s, msg, strlen(msg));
	sha256_final(&s, d);
	hex_of(d, sizeof(d), hex);
	assert_string_equal(hex, want);
}

static void
test_sha256_vectors(void **state)
{
	(void)state;
	check_sha("", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a', fed in pieces that straddle the blocks */
	check_sha("aaaaaaaaaaaaaaaaaaaaaaaaa", 40000,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
check_hmac(const unsigned char *key, size_t key_len, const void *data, size_t len, size_t bytes,
    const char *want)
{
	unsigned char mac[SHA256_DIGEST];
	char hex[2 * SHA256_DIGEST + 1];

	hmac_sha256(key, key_len, data, len, mac);
	hex_of(mac, bytes, hex);
	assert_string_equal(hex, want);
}

static void
test_hmac_rfc4231(void **state)
{
	unsigned char k[131], d[50];

	(void)state;
	memset(k, 0x0b, 20);
	check_hmac(k, 20, "Hi There", 8, 32, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac((const unsigned char *)"Jefe", 4, "what do ya want for nothing?", 28, 32,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20);
	memset(d, 0xdd, 50);
	check_hmac(k, 20, d, 50, 32, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (int i = 0; i < 25; i++)
		k[i] = (unsigned char)(i + 1);
	memset(d, 0xcd, 50);
	check_hmac(k, 25, d, 50, 32, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k, 0x0c, 20);
	check_hmac(k, 20, "Test With Truncation", 20, 16, "a3b6167473100ee06e0c796c2955552b");
	memset(k, 0xaa, 131);
	check_hmac(k, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54, 32,
	    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	check_hmac(k, 131, "This is a test using a larger than block-size key and a larger than block-size "
	    "data. The key needs to be hashed before being used by the HMAC algorithm.", 152, 32,
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void
test_run_sign_key_and_verify(void **state)
{
	unsigned char key[RUN_SIGN_KEY], again[RUN_SIGN_KEY];
	char err[512], path[512], hex[RUN_SIGN_HEX];
	char touch[] = "touch", spaced[] = "x y", plain[] = "x";
	char *argv[] = { touch, spaced, NULL };
	struct run_signed s = { .uid = "u1", .host = "h", .account = "default", .cwd = "/tmp",
		.env_json = "{}", .user = 1000, .argc = 2, .argv = argv };
	struct stat st;

	(void)state;
	setenv("XDG_STATE_HOME", tmpdir, 1);
	assert_false(run_sign_key_load(false, key, err, sizeof(err)));
	assert_non_null(strstr(err, "no signing key"));
	assert_true(run_sign_key_load(true, key, err, sizeof(err)));
	assert_true(run_sign_key_load(false, again, err, sizeof(err)));
	assert_memory_equal(key, again, sizeof(key));
	assert_true(run_sign_key_path(path, sizeof(path)));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	run_sign(key, &s, hex);
	assert_true(run_sign_verify(key, &s, hex));
	/* each field counts, and so do the argv's boundaries */
	argv[1] = plain;
	assert_false(run_sign_verify(key, &s, hex));
	argv[1] = spaced;
	s.cwd = "/tmp/";
	assert_false(run_sign_verify(key, &s, hex));
	s.cwd = "/tmp";
	assert_false(run_sign_verify(key, &s, "00"));
	assert_false(run_sign_verify(key, &s, NULL));
	/* a key others can read is refused */
	assert_int_equal(chmod(path, 0644), 0);
	assert_false(run_sign_key_load(false, key, err, sizeof(err)));
	assert_non_null(strstr(err, "mode 0600"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_run_sign_key_and_verify),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
