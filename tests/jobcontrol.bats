#!/usr/bin/env bats
# Job control as a person at a terminal meets it: each test runs an
# interactive bash in a detached tmux session (a real pseudo-terminal, job
# control on, no terminal needed around it), types into it and reads the
# screen back.  Every wait polls with a bound; none sleeps a fixed time.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	agent_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	unset TMUX
	TMUX_SOCK="$BATS_TEST_TMPDIR/tmux.sock"
	PATH="$TESTBIN:$PATH"
	# A bare shell: no rc files, a fixed prompt, the test's environment.
	tm new-session -d -x 100 -y 30 -- env PS1='$ ' PROMPT_COMMAND= \
		bash --norc --noprofile -i
	wait_screen '^\$$'
}

teardown() {
	tm kill-server 2>/dev/null || true
}

tm() {
	tmux -S "$TMUX_SOCK" -f /dev/null "$@"
}

# screen: the visible screen, one line per logical line.  A line longer than
# the pane wraps onto the next screen row, and a row that starts with its
# tail would match a pattern anchored at ^: the shell's job line for
# `$RLWRAP -- sh -c '...; echo continued'` wraps exactly before "continued"
# when $RLWRAP is as long as a distcheck build's path.  Joined rows keep
# their trailing blanks: those are trimmed, as tmux trims unjoined ones.
screen() {
	tm capture-pane -p -J | sed 's/ *$//'
}

# wait_screen REGEX [SECONDS [COUNT]]: polls the visible screen until COUNT
# lines (default 1) match.
wait_screen() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		[ "$(screen | grep -Ec -- "$1")" -ge "${3:-1}" ] && return 0
		sleep 0.1
	done
	echo "# screen never showed /$1/:" >&3
	screen | sed 's/^/# | /' >&3
	return 1
}

# wait_raw: until rlwrap has put the pane's terminal in raw mode (a Ctrl-Z
# before that stops rlwrap itself, by the default action, mid-start-up).
wait_raw() {
	local i tty
	tty=$(pane '#{pane_tty}')
	for ((i = 0; i < 200; i++)); do
		stty -F "$tty" -a | grep -q -- '-icanon' && return 0
		sleep 0.1
	done
	fail "the terminal never went raw"
}

# pane FORMAT: a tmux format for the pane (#{alternate_on}, #{cursor_flag}).
pane() {
	tm display-message -p "$1"
}

# type_line TEXT: types TEXT and Enter at the shell.
type_line() {
	tm send-keys -l -- "$1"
	tm send-keys Enter
}

# wait_prompt: until the shell is back at its prompt (what is typed before
# would go to rlwrap, still on its way out).
wait_prompt() {
	wait_screen '^\$$'
}

# screen_restored: the main screen, the cursor shown, the saved modes.
screen_restored() {
	wait_prompt
	[ "$(pane '#{alternate_on}')" = 0 ] || fail "left on the alternate screen"
	[ "$(pane '#{cursor_flag}')" = 1 ] || fail "the cursor is left hidden"
	type_line 'stty -g > now; cmp -s before now && echo modes-same || echo modes-differ'
	wait_screen '^modes-(same|differ)$'
	screen | grep -q '^modes-same$' || fail "the terminal modes were not restored"
	rm -f now
	tm clear-history
	tm send-keys C-l
}

start_tui() {
	type_line "stty -g > before; $RLWRAP -- tui"
	wait_screen '^tui: ready'
	[ "$(pane '#{alternate_on}')" = 1 ] || fail "the agent's alternate screen did not reach the terminal"
}

@test "Ctrl-Z stops a cooked-mode agent and rlwrap; fg continues both" {
	type_line "stty -g > before; $RLWRAP -- cat"
	wait_screen '^\$ .*-- cat$'
	wait_raw
	tm send-keys -l 'first'
	tm send-keys Enter
	wait_screen '^first$'
	tm send-keys C-z
	wait_screen 'Stopped +.*rlwrap -- cat'
	screen_restored
	type_line 'fg'
	wait_screen 'rlwrap -- cat$'
	wait_raw
	tm send-keys -l 'second'
	tm send-keys Enter
	# Echoed by the agent's terminal, then written back by cat: twice.  The
	# terminal echoes the ^Z only after it has stopped cat: on a loaded
	# machine rlwrap may stop before that echo reaches it, and relays it
	# when it runs again, in front of the next line.
	wait_screen '^(\^Z)?second$' 20 2
	tm send-keys C-d
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=0$'
	screen_restored
}

@test "Ctrl-Z in a full-screen agent that suspends itself: Stopped, then fg redraws it" {
	start_tui
	tm send-keys C-z
	wait_screen 'Stopped +.*rlwrap -- tui'
	screen_restored
	# Resized while stopped: the agent gets the new size when it runs again.
	tm resize-window -x 90 -y 20
	type_line 'fg'
	wait_screen '^tui: resumed'
	wait_screen '^tui: size 20 90'
	[ "$(pane '#{alternate_on}')" = 1 ] || fail "not back on the alternate screen"
	tm send-keys x
	wait_screen '^tui: key x'
	tm send-keys q
	wait_screen '^tui: bye'
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=0$'
	screen_restored
}

@test "an agent that sends itself SIGTSTP stops the job; fg continues it" {
	type_line "stty -g > before; $RLWRAP -- sh -c 'kill -TSTP \$\$; echo continued'"
	wait_screen 'Stopped +.*rlwrap -- sh -c'
	screen | grep -q '^continued' && fail "the agent ran on instead of stopping"
	screen_restored
	type_line 'fg'
	wait_screen '^continued$'
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=0$'
}

@test "a stopped job killed from the shell: its status and a clean terminal" {
	type_line "stty -g > before; $RLWRAP -- sh -c 'kill -TSTP \$\$; echo continued'"
	wait_screen 'Stopped +.*rlwrap -- sh -c'
	type_line 'echo "stopped rc=$?"'
	wait_screen '^stopped rc=148$'
	# The shell sends TERM then CONT: the agent is gone without running on.
	type_line 'pid=$(jobs -p %1); kill %1; for i in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done; echo gone'
	wait_screen '^gone$'
	wait_screen 'Terminated +.*rlwrap -- sh -c'
	screen | grep -q '^continued' && fail "the agent ran on"
	screen_restored
}

@test "a full-screen agent that stops itself with no cleanup: the terminal is put back, and again on fg" {
	start_tui
	tm send-keys t
	wait_screen 'Stopped +.*rlwrap -- tui'
	screen_restored
	type_line 'fg'
	wait_screen '^tui: (continued|size)'   # see "SIGSTOP of the agent does not strand"
	[ "$(pane '#{alternate_on}')" = 1 ] || fail "not back on the alternate screen"
	[ "$(pane '#{cursor_flag}')" = 0 ] || fail "the agent's hidden cursor was not hidden again"
	tm send-keys y
	wait_screen '^tui: key y'
	tm send-keys q
	wait_screen '^tui: bye'
	screen_restored
}

@test "SIGSTOP of the agent does not strand the terminal" {
	start_tui
	tm send-keys s
	wait_screen 'Stopped.*rlwrap -- tui'
	screen_restored
	type_line 'fg'
	# Running again: it says so on SIGCONT, or (when its line was drawn
	# before rlwrap had the terminal back, and the alternate screen was
	# entered over it) on the SIGWINCH that asks it to redraw; either
	# line is written only by a running agent.
	wait_screen '^tui: (continued|size)'
	tm send-keys q
	wait_screen '^tui: bye'
	screen_restored
}

@test "SIGSTOP of the agent from elsewhere: stopped job, fg continues it" {
	start_tui
	local pid
	pid=$(screen | sed -n 's/^tui: ready \([0-9]*\).*/\1/p')
	[ -n "$pid" ] || fail "no pid"
	kill -STOP "$pid"
	wait_screen 'Stopped.*rlwrap -- tui'
	screen_restored
	type_line 'fg'
	wait_screen '^tui: (continued|size)'   # see "SIGSTOP of the agent does not strand"
	tm send-keys q
	wait_screen '^tui: bye'
	screen_restored
}

@test "SIGTSTP to rlwrap from elsewhere stops the agent with it" {
	start_tui
	local agent leader wrapper
	agent=$(screen | sed -n 's/^tui: ready \([0-9]*\).*/\1/p')
	leader=$(ps -o ppid= -p "$agent")
	wrapper=$(ps -o ppid= -p $leader)
	[ -n "$wrapper" ] || fail "no rlwrap"
	kill -TSTP $wrapper
	wait_screen 'Stopped +.*rlwrap -- tui'
	screen_restored
	type_line 'fg'
	wait_screen '^tui: (continued|size)'   # see "SIGSTOP of the agent does not strand"
	tm send-keys q
	wait_screen '^tui: bye'
	screen_restored
}

@test "an agent that dies on the alternate screen: screen and cursor back, rlwrap's line on its own" {
	# The screen stays the alternate one, the cursor hidden, the banner on it.
	type_line "stty -g > before; $RLWRAP --family claude -- sh -c 'cat \"$FIXTURES/wrapper/claude-screen-limit-stays.txt\"; exit 1'"
	wait_screen '^rlwrap: claude: usage-limit'
	screen_restored
}

@test "an agent that ends mid-line: rlwrap's verdict starts a line of its own" {
	# The banner is the last thing printed, with no line end after it.
	type_line "stty -g > before; $RLWRAP --family claude -- sh -c 'cat \"$FIXTURES/wrapper/claude-screen-limit-midline.txt\"; exit 1'"
	wait_screen '^rlwrap: claude: usage-limit'
	screen | grep -q 'resets 6:30pm (UTC)$' || fail "the verdict is not on a line of its own"
	screen_restored
}

@test "an agent that dies mid-screen: the main screen is back with the shell on it" {
	start_tui
	tm send-keys d
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=3$'
	screen_restored
}

@test "without a pty, an agent that sends itself SIGTSTP stops the job as it would unwrapped" {
	type_line "stty -g > before; $RLWRAP --no-pty -- sh -c 'kill -TSTP \$\$; echo continued'"
	wait_screen 'Stopped +.*rlwrap --no-pty -- sh -c'
	screen | grep -q '^continued' && fail "the agent ran on instead of stopping"
	type_line 'echo "stopped rc=$?"'
	wait_screen '^stopped rc=148$'
	screen_restored
	type_line 'fg'
	wait_screen '^continued$'
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=0$'
}

@test "bg: the job stops for tty output, as the agent would, and fg gives it back" {
	type_line "stty -g > before; $RLWRAP -- cat"
	wait_screen '^\$ .*-- cat$'
	wait_raw
	tm send-keys C-z
	wait_screen 'Stopped +.*rlwrap -- cat'
	type_line 'bg'
	wait_screen 'rlwrap -- cat &$'
	# In the background it would need the terminal: it stops again, for
	# output, with the command held stopped, the terminal left alone.
	type_line 'jobs -l'
	wait_screen 'Stopped \(tty output\) +.*rlwrap -- cat'
	screen_restored
	type_line 'fg'
	wait_screen '^[^$]*rlwrap -- cat$'
	# Keys typed before it has the terminal raw again are echoed by the
	# shell's cooked terminal too.
	wait_raw
	tm send-keys -l 'back'
	tm send-keys Enter
	# Echoed by the agent's terminal, then written back by cat: twice.
	wait_screen '^back$' 20 2
	tm send-keys C-d
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=0$'
	screen_restored
}

@test "a backgrounded agent that draws is held stopped until it is in the foreground" {
	type_line "$RLWRAP -- sh -c 'echo \$\$ > agent.pid; while :; do echo tick; sleep 0.1; done'"
	wait_screen '^tick$'
	tm send-keys C-z
	wait_screen 'Stopped +.*rlwrap -- sh'
	type_line 'bg'
	type_line 'jobs -l'
	wait_screen 'Stopped \(tty output\) +.*rlwrap -- sh'
	# The agent itself is stopped, not drawing over the shell.
	[ "$(awk '{ print $3 }' "/proc/$(cat agent.pid)/stat")" = T ] || fail "the agent runs in the background"
	type_line 'clear; fg'
	wait_screen '^tick$'
	[ "$(awk '{ print $3 }' "/proc/$(cat agent.pid)/stat")" != T ] || fail "the agent is still stopped"
	tm send-keys C-c
	wait_prompt
}

@test "with no job-control shell above it, a stopped agent is continued, never stranded" {
	# rlwrap as the first process of a pane: its group is orphaned, so the
	# kernel discards its stop; it runs on and continues the agent.
	tm new-session -d -s orphan -x 100 -y 30 -- "$RLWRAP" -- tui
	tm kill-session -t 0
	wait_screen '^tui: ready'
	# Each key is read only once the agent runs again.
	tm send-keys t a
	wait_screen '^tui: key a'
	tm send-keys s b
	wait_screen '^tui: key b'
}

@test "the --wait countdown is drawn again as soon as fg continues it" {
	"$RLWRAP" trip --for 3d30m claude > /dev/null
	# "3d0h left" for half an hour: the line's text does not change, so
	# only the continue can draw it again within the bound.
	type_line "$RLWRAP --wait=4d -f claude -- true"
	wait_screen 'waiting for claude.* left$'
	tm send-keys C-z
	wait_screen 'Stopped +.*rlwrap --wait=4d'
	type_line 'clear'
	wait_screen '^\$$'
	[ "$(screen | grep -c ' left$')" = 0 ] || fail "the screen was not cleared"
	type_line 'fg'
	wait_screen 'waiting for claude.* left$' 20
	tm send-keys C-c
	wait_prompt
	type_line 'echo "rc=$?"'
	wait_screen '^rc=130$'
}
