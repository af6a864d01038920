/*
 * qwen-code: Claude's stream shape and records; never detected from the
 * stream (it cannot be told from Claude's), only from the command.
 */
#include "dialect.h"

static const char *const qwen_commands[] = { "qwen", NULL };
static const char *const qwen_packages[] = { "@qwen-code/qwen-code", NULL };

const struct dialect dialect_qwen = {
	.name = "qwen", .has_terminal = true,
	.commands = qwen_commands, .packages = qwen_packages,
	.unchanged = claude_heartbeat_unchanged, .unchanged_ahead = claude_heartbeat_ahead,
	.detect = NULL, .record = claude_record,
};
