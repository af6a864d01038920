/*
 * cursor-agent -p --output-format stream-json: Claude's stream shape, plus
 * tool_call records.  Its stream looks like Claude's until a tool_call
 * shows, so detection moves from claude to cursor then.
 */
#include "dialect.h"

static bool
cursor_detect(json_t *obj)
{
	return jtype_is(obj, "tool_call");
}

static const char *const cursor_commands[] = { "cursor-agent", NULL };
static const char *const cursor_kept[] = { "tool_call", NULL };

const struct dialect dialect_cursor = {
	.name = "cursor", .has_terminal = true,
	.commands = cursor_commands,
	.kept_types = cursor_kept,
	.unchanged = claude_heartbeat_unchanged, .unchanged_ahead = claude_heartbeat_ahead,
	.refines = &dialect_claude,
	.detect = cursor_detect, .record = claude_record,
};
