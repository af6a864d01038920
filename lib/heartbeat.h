/*
 * heartbeat.h: Claude's rate_limit_event heartbeat, read from its bytes.
 * Subscription sessions write one after nearly every API response; an
 * allowed one means nothing to the verdict, so the classifier should not
 * pay a JSON parse for each.
 *
 * heartbeat_scan() accepts only a line every byte of which lies in a small
 * subset of JSON that jansson reads exactly as the scan does (compact, the
 * strings and numbers of jsonsubset.h, no arrays, objects at most four
 * deep), so that what it says about the line is what a parse would say.
 * Anything else is left to the parser.
 *
 * Ownership: the caller owns every buffer; nothing is kept between calls.
 */
#ifndef RLWRAP_HEARTBEAT_H
#define RLWRAP_HEARTBEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEARTBEAT_PREFIX "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{"
#define HEARTBEAT_PREFIX_LEN (sizeof(HEARTBEAT_PREFIX) - 1)
/* The longest state a heartbeat may carry and still be recognised. */
#define HEARTBEAT_STATE_MAX 1024
/* A line heartbeat_like() can compare against: at most this long, with at
 * most this many values that may change (utilization, uuid, ...). */
#define HEARTBEAT_TEMPLATE_MAX 2048
#define HEARTBEAT_SLOTS_MAX 16
#define HEARTBEAT_WORDS (HEARTBEAT_TEMPLATE_MAX / 64)

/*
 * The last line heartbeat_scan() accepted, and where its values that may
 * change without changing its state lie: the utilization values in
 * rate_limit_info, and the record's other scalar values (uuid, session_id).
 */
struct heartbeat_template {
	size_t len;                          /* 0: none */
	char line[HEARTBEAT_TEMPLATE_MAX];
	size_t nslots;
	struct { size_t start, end; } slots[HEARTBEAT_SLOTS_MAX];
	/* Bit i%64 of word i/64: byte i lies outside the slots or is a string
	 * slot's quote (fixed), lies in a slot that is not a string (scalar),
	 * or inside a string slot's quotes (text). */
	uint64_t fixed[HEARTBEAT_WORDS], scalar[HEARTBEAT_WORDS], text[HEARTBEAT_WORDS];
};

/*
 * Is line (without its newline) a rate_limit_event object, in the subset
 * above, whose top-level "type" is "rate_limit_event" and whose
 * rate_limit_info has "status":"allowed" and nothing else under that key?
 * Then state (HEARTBEAT_STATE_MAX bytes) receives its reset and overage
 * state: the bytes of rate_limit_info with every "utilization" value left
 * out, and *state_len their length.  Two heartbeats with the same state
 * differ in utilization, uuid or the like only.
 */
bool heartbeat_scan(const char *line, size_t len, char *state, size_t *state_len);
/* heartbeat_scan() that also makes line the template (tpl->len 0 when the
 * line cannot be one). */
bool heartbeat_scan_template(const char *line, size_t len, char *state, size_t *state_len,
    struct heartbeat_template *tpl);
/*
 * Is line the template's line with other scalar values in its slots?  Then
 * heartbeat_scan() accepts it with the template line's state; this only
 * finds that out faster (the bytes between the slots are compared, not
 * scanned).  False says nothing: scan the line.  A line whose values have
 * other lengths than the template's becomes the template.
 */
bool heartbeat_like(struct heartbeat_template *tpl, const char *line, size_t len);
/*
 * heartbeat_like()'s common case, which leaves the template as it is: the
 * line as long as the template, with other values only inside its slots,
 * each the same length.  No byte of such a line is a newline.
 */
bool heartbeat_in_place(const struct heartbeat_template *tpl, const char *line, size_t len);

#endif
