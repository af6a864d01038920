/* Unit tests for lib/failsignal.c: reason names, the FailureSignal's JSON
 * (nulls, rounding) and its text kept well-formed UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "failsignal.h"
#include "textutil.h"

#define NOW 1796040000  /* 2026-11-30T12:00:00Z */

static char *
signal_json(const struct fail_signal *sig)
{
	json_t *o = signal_to_json(sig, NOW);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

/* jansson refuses ill-formed UTF-8, which would drop the key from the JSON:
 * stray bytes, overlong forms and surrogates go, and so do C1 controls. */
static void
test_message_well_formed_utf8(void **state)
{
	static const char bad[] = "a\x8e b\xc0\xaf c\xed\xa0\x80 d\xc2\x9b[2J e\xf4\x90\x80\x80 f\xe2\x82";
	struct fail_signal sig;
	char model[8];
	json_t *o;

	signal_init(&sig);
	signal_set_message(&sig, bad, sizeof(bad) - 1);
	assert_string_equal(sig.message, "a b c d[2J e f");
	signal_set_message(&sig, "caf\xc3\xa9 \xc2\xb7 ok", 11);
	assert_string_equal(sig.message, "caf\xc3\xa9 \xc2\xb7 ok");
	/* A JSON string cut to a fixed field keeps whole characters only. */
	assert_int_equal(utf8_copy(model, sizeof(model), "abcdef\xc3\xa9"), 6);
	assert_string_equal(model, "abcdef");
	utf8_copy(sig.model, sizeof(sig.model), "x\xffy");
	assert_string_equal(sig.model, "xy");
	o = signal_to_json(&sig, NOW);
	assert_non_null(json_object_get(o, "message"));
	assert_non_null(json_object_get(o, "model"));
	json_decref(o);
}

static void
test_reason_names_exact(void **state)
{
	enum reason r;

	assert_true(reason_from_name("credit-exhausted", &r));
	assert_int_equal(r, REASON_CREDIT_EXHAUSTED);
	assert_false(reason_from_name("rate", &r));
	assert_false(reason_from_name("Rate-Limit", &r));
	assert_true(reason_trips_by_default(REASON_USAGE_LIMIT));
	assert_false(reason_trips_by_default(REASON_OVERLOADED));
}

static void
test_signal_json_nulls_and_rounding(void **state)
{
	struct fail_signal sig;
	char *s;

	signal_init(&sig);
	sig.reason = REASON_RATE_LIMIT;
	sig.confidence = 0.5;
	sig.resets_at = NOW + 41.2;
	sig.reset_source = RESET_SRC_TEXT;
	s = signal_json(&sig);
	assert_non_null(strstr(s, "\"retry_after_secs\":42"));
	assert_non_null(strstr(s, "\"resets_at\":\"2026-11-30T12:00:42Z\""));
	assert_non_null(strstr(s, "\"http_status\":null"));
	assert_non_null(strstr(s, "\"exit_code\":null"));
	assert_non_null(strstr(s, "\"family\":null"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_names_exact),
		cmocka_unit_test(test_signal_json_nulls_and_rounding),
		cmocka_unit_test(test_message_well_formed_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
