/*
 * The emulator is libvterm's screen layer.  Two things it does not hand
 * out are followed here from its callbacks:
 *
 * - Which rows were reached by auto-wrap (libvterm 0.1 keeps no such mark
 *   per line).  A glyph drawn at column 0 right below the previous glyph,
 *   with no cursor move reported in between, can only have got there by
 *   the wrap: every other way to column 0 moves the cursor, and libvterm
 *   reports a move at once except inside a run of text, where only the wrap
 *   moves it.  A row loses the mark when a glyph is drawn at its start by
 *   other means, when it is erased whole, or when the last cell of the row
 *   above it is erased (as libvterm 0.2 does).
 * - The cells themselves: libvterm reads only the buffer being shown, so
 *   the main screen would be out of reach while a program is on the
 *   alternate one, and the alternate frame gone once it has left.  Each
 *   change is copied out as it is reported (damage, moved rectangles).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vterm.h>

#include "screen.h"

#define DIM_MAX 1000
#define CELL_CHARS VTERM_MAX_CHARS_PER_CELL
/* The second half of a wide character, in libvterm's cells. */
#define WIDE_TAIL ((uint32_t)-1)

struct cell {
	uint32_t ch[CELL_CHARS];   /* ch[0] 0: blank (erased or never drawn) */
	signed char width;
};

/* One screen's worth of cells and wrap marks. */
struct grid {
	int rows, cols;
	struct cell *cells;
	struct cell **row;         /* each row's cells in cells: a scroll moves these */
	bool *cont;                /* row reached by auto-wrap from the one above */
};

struct sb_row {
	char *text;
	size_t len;
	bool cont;
};

struct screen {
	VTerm *vt;
	VTermScreen *vs;
	VTermState *state;
	struct grid grid[2];       /* main, alternate */
	int cur;                   /* the one shown: 0 or 1 */
	/* The last glyph drawn and where the next one goes, while the cursor
	 * has not been moved anywhere else. */
	bool track;
	int track_row, track_col, track_next;
	/* A whole-screen damage on the alternate screen is a clear or the
	 * switch back to the main screen (reported before the switch is): the
	 * frame before it is kept in spare until the next report tells which. */
	bool clear_pending;
	struct grid spare;
	/* The alternate screen's last frame once left, and the absolute main
	 * row it goes before (rows are counted from the first ever pushed). */
	struct grid frame;
	bool have_frame, anchor_pending;
	unsigned long long anchor;
	/* The scrollback ring; rows pushed so far, and in this scroll. */
	struct sb_row *sb;
	size_t sb_first, sb_count;
	unsigned long long pushed;
	int push_batch;
	/* A character's first bytes, not yet written (see screen_feed). */
	char held[4];
	size_t held_len;
	int esc;                   /* where the bytes are in an escape sequence */
};

/* Just enough of ECMA-48 to find a CSI's final byte (see feed_checked). */
enum { ESC_NONE, ESC_ESC, ESC_CSI, ESC_STRING, ESC_STRING_ESC };

static int
clamp_dim(int n, int least)
{
	return n < least ? least : n > DIM_MAX ? DIM_MAX : n;
}

/* A wide character never fits one column: libvterm 0.1 then writes past
 * the row. */
#define COLS_MIN 2

static bool
grid_alloc(struct grid *g, int rows, int cols)
{
	g->rows = rows;
	g->cols = cols;
	g->cells = calloc((size_t)rows * (size_t)cols, sizeof(*g->cells));
	g->row = calloc((size_t)rows, sizeof(*g->row));
	g->cont = calloc((size_t)rows, sizeof(*g->cont));
	if (g->cells == NULL || g->row == NULL || g->cont == NULL)
		return false;
	for (int r = 0; r < rows; r++)
		g->row[r] = g->cells + (size_t)r * (size_t)cols;
	return true;
}

static void
grid_free(struct grid *g)
{
	free(g->cells);
	free(g->row);
	free(g->cont);
	g->cells = NULL;
	g->row = NULL;
	g->cont = NULL;
}

static void
grid_clear(struct grid *g)
{
	memset(g->cells, 0, (size_t)g->rows * (size_t)g->cols * sizeof(*g->cells));
	memset(g->cont, 0, (size_t)g->rows * sizeof(*g->cont));
}

static void
grid_copy(struct grid *dst, const struct grid *src)
{
	int rows = dst->rows < src->rows ? dst->rows : src->rows;
	int cols = dst->cols < src->cols ? dst->cols : src->cols;

	grid_clear(dst);
	for (int r = 0; r < rows; r++) {
		memcpy(dst->row[r], src->row[r], (size_t)cols * sizeof(*dst->cells));
		dst->cont[r] = src->cont[r];
	}
}

static struct cell *
grid_at(const struct grid *g, int row, int col)
{
	return g->row[row] + col;
}

static void
cell_from(struct cell *c, const VTermScreenCell *v)
{
	int i;

	for (i = 0; i < CELL_CHARS && v->chars[i] != 0; i++)
		c->ch[i] = v->chars[i];
	for (; i < CELL_CHARS; i++)
		c->ch[i] = 0;
	c->width = v->width;
}

/* Copies the cells of rect, as libvterm now has them, into the shown grid:
 * one call for a rect left blank (an erase), one per cell otherwise. */
static void
copy_rect(struct screen *s, VTermRect rect)
{
	struct grid *g = &s->grid[s->cur];
	VTermScreenCell v;
	VTermPos pos;

	if (rect.start_row < 0 || rect.start_col < 0 || rect.end_row > g->rows || rect.end_col > g->cols ||
	    rect.end_row <= rect.start_row || rect.end_col <= rect.start_col)
		return;
	/* Blank cells give nothing but the line feeds between rows. */
	if (rect.end_col - rect.start_col > 2 &&
	    vterm_screen_get_chars(s->vs, NULL, 0, rect) == (size_t)(rect.end_row - rect.start_row - 1)) {
		for (int r = rect.start_row; r < rect.end_row; r++)
			for (int c = rect.start_col; c < rect.end_col; c++)
				*grid_at(g, r, c) = (struct cell){ .width = 1 };
		return;
	}
	for (pos.row = rect.start_row < 0 ? 0 : rect.start_row; pos.row < rect.end_row && pos.row < g->rows; pos.row++)
		for (pos.col = rect.start_col < 0 ? 0 : rect.start_col; pos.col < rect.end_col && pos.col < g->cols;
		    pos.col++)
			if (vterm_screen_get_cell(s->vs, pos, &v))
				cell_from(grid_at(g, pos.row, pos.col), &v);
}

/* Where the frame of an alternate screen just left goes: the main
 * screen's cursor row once the switch back has restored it. */
static void
settle_anchor(struct screen *s)
{
	VTermPos pos;

	if (s->anchor_pending) {
		vterm_state_get_cursorpos(s->state, &pos);
		s->anchor = s->pushed + (unsigned long long)pos.row;
		s->anchor_pending = false;
	}
}

/* What a report before this one left open: settled by this one. */
static void
settle(struct screen *s)
{
	s->clear_pending = false;
	settle_anchor(s);
}

static bool
blank(const struct cell *c)
{
	return c->ch[0] == 0;
}

/* A glyph drawn (one cell, or two for a wide one): follows the wrap. */
static bool
glyph_drawn(struct screen *s, VTermRect rect)
{
	struct grid *g = &s->grid[s->cur];
	int width = rect.end_col - rect.start_col, row = rect.start_row, col = rect.start_col;
	const struct cell *c;

	if (rect.end_row - row != 1 || width < 1 || width > 2 || width >= g->cols || row >= g->rows ||
	    col >= g->cols)
		return false;
	c = grid_at(g, row, col);
	if (blank(c) || c->ch[0] == WIDE_TAIL || c->width != width)
		return false;
	/* Drawn again where it was (a combining mark added): no new glyph. */
	if (s->track && row == s->track_row && col == s->track_col)
		return true;
	if (col == 0)
		g->cont[row] = s->track && s->track_next > 0 && row == s->track_row + 1;
	s->track = true;
	s->track_row = row;
	s->track_col = col;
	s->track_next = col + width;
	return true;
}

/* Erased cells: a row erased whole, or below a row whose last cell is
 * blank, is no continuation. */
static void
erased(struct screen *s, VTermRect rect)
{
	struct grid *g = &s->grid[s->cur];

	if (rect.end_col < g->cols)
		return;
	for (int r = rect.start_row < 0 ? 0 : rect.start_row; r < rect.end_row && r < g->rows; r++) {
		if (rect.start_col <= 0)
			g->cont[r] = false;
		if (r + 1 < g->rows && blank(grid_at(g, r, g->cols - 1)))
			g->cont[r + 1] = false;
	}
}

static int
on_damage(VTermRect rect, void *user)
{
	struct screen *s = user;
	struct grid *g = &s->grid[s->cur];
	bool whole = rect.start_row <= 0 && rect.start_col <= 0 && rect.end_row >= g->rows && rect.end_col >= g->cols;

	if (whole && s->cur == 1) {
		if (!s->clear_pending) {
			struct grid t = s->spare;

			s->spare = *g;
			*g = t;
			grid_clear(g);
		}
		s->clear_pending = true;
		return 1;
	}
	settle(s);
	copy_rect(s, rect);
	if (!glyph_drawn(s, rect))
		erased(s, rect);
	return 1;
}

/* Rows moved (a scroll): their marks move with them; rows left behind
 * are new ones. */
static void
move_marks(struct screen *s, VTermRect dest, VTermRect src)
{
	struct grid *g = &s->grid[s->cur];
	int n = dest.end_row - dest.start_row, shift = dest.start_row - src.start_row;

	if (dest.start_row < 0 || src.start_row < 0 || dest.end_row > g->rows || src.end_row > g->rows || n <= 0)
		return;
	memmove(g->cont + dest.start_row, g->cont + src.start_row, (size_t)n * sizeof(*g->cont));
	for (int r = src.start_row; r < src.end_row; r++)
		if (r < dest.start_row || r >= dest.end_row)
			g->cont[r] = false;
	if (s->track && s->track_row >= src.start_row && s->track_row < src.end_row)
		s->track_row += shift;
}

/* Whole rows moved: their pointers; the rows they leave get the rows
 * overwritten (libvterm erases those next). */
static void
move_rows(struct grid *g, int dest, int src, int n)
{
	struct cell **old = malloc((size_t)g->rows * sizeof(*old));
	int spare = 0;

	if (old == NULL)
		return;
	memcpy(old, g->row, (size_t)g->rows * sizeof(*old));
	for (int i = 0; i < n; i++)
		g->row[dest + i] = old[src + i];
	for (int r = dest; r < dest + n; r++)
		if (r < src || r >= src + n) {
			while (spare < n && src + spare >= dest && src + spare < dest + n)
				spare++;
			g->row[src + spare++] = old[r];
		}
	free(old);
}

/* The cells move as libvterm's did (reading them back would cost a call
 * per cell of the screen at every scroll). */
static void
move_cells(struct grid *g, VTermRect dest, VTermRect src)
{
	int rows = dest.end_row - dest.start_row, cols = dest.end_col - dest.start_col;
	bool down = dest.start_row > src.start_row;

	if (dest.start_row < 0 || src.start_row < 0 || dest.start_col < 0 || src.start_col < 0 ||
	    dest.end_row > g->rows || src.start_row + rows > g->rows || dest.end_col > g->cols ||
	    src.start_col + cols > g->cols || rows <= 0 || cols <= 0)
		return;
	if (cols == g->cols) {
		move_rows(g, dest.start_row, src.start_row, rows);
		return;
	}
	for (int i = 0; i < rows; i++) {
		int r = down ? rows - 1 - i : i;

		memmove(grid_at(g, dest.start_row + r, dest.start_col), grid_at(g, src.start_row + r, src.start_col),
		    (size_t)cols * sizeof(*g->cells));
	}
}

static int
on_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct screen *s = user;

	settle(s);
	s->push_batch = 0;
	if (dest.start_col == 0 && dest.end_col == s->grid[s->cur].cols)
		move_marks(s, dest, src);
	move_cells(&s->grid[s->cur], dest, src);
	return 1;
}

static int
on_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct screen *s = user;
	bool phantom = s->track_next >= s->grid[s->cur].cols && pos.col == s->track_col;

	settle(s);
	if (s->track && !(pos.row == s->track_row && (pos.col == s->track_next || phantom)))
		s->track = false;
	return 1;
}

static void
enter_alternate(struct screen *s)
{
	s->cur = 1;
	grid_clear(&s->grid[1]);
}

static void
leave_alternate(struct screen *s)
{
	struct grid *alt = &s->grid[1];

	/* The whole-screen damage just reported was this switch. */
	if (s->clear_pending) {
		struct grid t = s->spare;

		s->spare = *alt;
		*alt = t;
	}
	s->clear_pending = false;
	grid_copy(&s->frame, alt);
	s->have_frame = true;
	s->anchor_pending = true;
	s->cur = 0;
}

static int
on_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct screen *s = user;

	if (prop != VTERM_PROP_ALTSCREEN || (val->boolean ? 1 : 0) == s->cur)
		return 1;
	if (val->boolean) {
		settle(s);
		enter_alternate(s);
	} else {
		leave_alternate(s);
	}
	s->track = false;
	return 1;
}

static size_t
utf8_put(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c < 0x110000) {
		o[0] = (char)(0xf0 | (c >> 18));
		o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[3] = (char)(0x80 | (c & 0x3f));
		return 4;
	}
	return 0;
}

/* The bytes a row needs at most. */
static size_t
row_text_max(int cols)
{
	return (size_t)cols * CELL_CHARS * 4 + 1;
}

/* A row's text, up to its last drawn cell (blanks before it are spaces). */
static size_t
row_text(const struct cell *cells, int cols, char *out)
{
	size_t n = 0, keep = 0;

	for (int col = 0; col < cols; col += cells[col].width > 1 ? cells[col].width : 1) {
		const struct cell *c = &cells[col];

		if (blank(c) || c->ch[0] == WIDE_TAIL) {
			out[n++] = ' ';
			continue;
		}
		for (int i = 0; i < CELL_CHARS && c->ch[i] != 0; i++)
			n += utf8_put(c->ch[i], out + n);
		keep = n;
	}
	return keep;
}

static void
cells_from(struct cell *out, int cols, const VTermScreenCell *cells)
{
	for (int i = 0; i < cols; i++)
		cell_from(&out[i], &cells[i]);
}

static int
on_pushline(int cols, const VTermScreenCell *cells, void *user)
{
	struct screen *s = user;
	struct grid *g = &s->grid[0];
	struct cell *row = calloc((size_t)cols, sizeof(*row));
	char *text = malloc(row_text_max(cols));
	struct sb_row *slot;

	settle(s);
	if (row == NULL || text == NULL) {
		free(row);
		free(text);
		return 0;
	}
	cells_from(row, cols, cells);
	if (s->sb_count == SCREEN_SCROLLBACK) {
		free(s->sb[s->sb_first].text);
		s->sb_first = (s->sb_first + 1) % SCREEN_SCROLLBACK;
		s->sb_count--;
	}
	slot = &s->sb[(s->sb_first + s->sb_count++) % SCREEN_SCROLLBACK];
	slot->len = row_text(row, cols, text);
	slot->text = text;
	slot->cont = s->push_batch < g->rows && g->cont[s->push_batch];
	free(row);
	s->push_batch++;
	s->pushed++;
	return 1;
}

static const VTermScreenCallbacks screen_callbacks = {
	.damage = on_damage,
	.moverect = on_moverect,
	.movecursor = on_movecursor,
	.settermprop = on_settermprop,
	.sb_pushline = on_pushline,
};

struct screen *
screen_new(int rows, int cols)
{
	struct screen *s = calloc(1, sizeof(*s));

	rows = clamp_dim(rows, 1);
	cols = clamp_dim(cols, COLS_MIN);
	if (s == NULL || (s->sb = calloc(SCREEN_SCROLLBACK, sizeof(*s->sb))) == NULL ||
	    !grid_alloc(&s->grid[0], rows, cols) || !grid_alloc(&s->grid[1], rows, cols) ||
	    !grid_alloc(&s->spare, rows, cols) || !grid_alloc(&s->frame, rows, cols) ||
	    (s->vt = vterm_new(rows, cols)) == NULL) {
		screen_free(s);
		return NULL;
	}
	vterm_set_utf8(s->vt, 1);
	s->vs = vterm_obtain_screen(s->vt);
	s->state = vterm_obtain_state(s->vt);
	vterm_screen_enable_altscreen(s->vs, 1);
	vterm_screen_set_damage_merge(s->vs, VTERM_DAMAGE_CELL);
	vterm_screen_set_callbacks(s->vs, &screen_callbacks, s);
	vterm_screen_reset(s->vs, 1);
	return s;
}

void
screen_free(struct screen *s)
{
	if (s == NULL)
		return;
	if (s->vt != NULL)
		vterm_free(s->vt);
	for (size_t i = 0; s->sb != NULL && i < s->sb_count; i++)
		free(s->sb[(s->sb_first + i) % SCREEN_SCROLLBACK].text);
	free(s->sb);
	grid_free(&s->grid[0]);
	grid_free(&s->grid[1]);
	grid_free(&s->spare);
	grid_free(&s->frame);
	free(s);
}

/* A grid of the new size keeping what fits (libvterm keeps the top left). */
static bool
grid_resize(struct grid *g, int rows, int cols)
{
	struct grid n;

	if (!grid_alloc(&n, rows, cols)) {
		grid_free(&n);
		return false;
	}
	grid_copy(&n, g);
	grid_free(g);
	*g = n;
	return true;
}

/* After a resize, as xterm does: the scroll region (and the left and
 * right margins) back to the whole screen, the cursor where it was, inside
 * the screen.  libvterm 0.1 keeps margins beyond a smaller screen, and can
 * leave the cursor above it (moved up by the rows it pushed to the
 * scrollback, from wherever it was): either makes a later write land
 * outside its buffer. */
static void
reset_margins(struct screen *s, int rows, int cols)
{
	VTermPos pos;
	char seq[48];
	int n;

	vterm_state_get_cursorpos(s->state, &pos);
	pos.row = pos.row < 0 ? 0 : pos.row >= rows ? rows - 1 : pos.row;
	pos.col = pos.col < 0 ? 0 : pos.col >= cols ? cols - 1 : pos.col;
	n = snprintf(seq, sizeof(seq), "\033[?69l\033[r\033[%d;%dH", pos.row + 1, pos.col + 1);
	vterm_input_write(s->vt, seq, (size_t)n);
}

void
screen_resize(struct screen *s, int rows, int cols)
{
	VTermRect all;

	rows = clamp_dim(rows, 1);
	cols = clamp_dim(cols, COLS_MIN);
	if (rows == s->grid[0].rows && cols == s->grid[0].cols)
		return;
	settle(s);
	/* A shrink scrolls the main screen through the callbacks first, at
	 * the old size. */
	vterm_set_size(s->vt, rows, cols);
	reset_margins(s, rows, cols);
	/* A grid that cannot grow keeps its size: every access is bounded by
	 * a grid's own. */
	(void)grid_resize(&s->grid[0], rows, cols);
	(void)grid_resize(&s->grid[1], rows, cols);
	(void)grid_resize(&s->spare, rows, cols);
	all = (VTermRect){ .start_row = 0, .end_row = s->grid[s->cur].rows, .start_col = 0, .end_col = s->grid[s->cur].cols };
	copy_rect(s, all);
	s->track = false;
	s->clear_pending = false;
}

/* The length of the well-formed UTF-8 sequence at p, 0 when p starts none,
 * -1 when the n bytes end inside one. */
static int
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	int len;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
	}
	return len;
}

static void
vt_write(struct screen *s, const unsigned char *p, size_t n)
{
	if (n > 0)
		vterm_input_write(s->vt, (const char *)p, n);
}

/* The escape state after byte c; *rep: c ended a CSI ... b. */
static int
esc_next(int st, unsigned char c, bool *rep)
{
	*rep = false;
	if (c == 0x18 || c == 0x1a)
		return ESC_NONE;
	switch (st) {
	case ESC_NONE:
		return c == 0x1b ? ESC_ESC : ESC_NONE;
	case ESC_ESC:
		if (c == '[')
			return ESC_CSI;
		if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')
			return ESC_STRING;
		return c == 0x1b || (c >= 0x20 && c < 0x30) || c < 0x20 ? ESC_ESC : ESC_NONE;
	case ESC_CSI:
		if (c == 0x1b)
			return ESC_ESC;
		if (c < 0x40 || c > 0x7e)
			return ESC_CSI;
		*rep = c == 'b';
		return ESC_NONE;
	case ESC_STRING:
		return c == 0x07 ? ESC_NONE : c == 0x1b ? ESC_STRING_ESC : ESC_STRING;
	default:
		return c == '\\' ? ESC_NONE : esc_next(ESC_ESC, c, rep);
	}
}

/*
 * libvterm 0.1 decodes UTF-8 across whatever comes between (a lead byte,
 * a control, a continuation byte later make one character), lets a C1
 * control through as a character of width -1 that moves the cursor left
 * of the screen, and loses a character split between two writes after
 * text: it gets well-formed UTF-8 only.  Each byte that starts no
 * character is U+FFFD, a C1 control in UTF-8 is dropped, and a character
 * the bytes end inside is held back until the rest comes.  Its REP
 * (CSI n b) repeats the last glyph for ever when that had no width (none
 * yet, or a zero-width one): its final byte becomes one it ignores.
 */
static void
feed_checked(struct screen *s, const unsigned char *p, size_t n)
{
	static const unsigned char replacement[] = { 0xef, 0xbf, 0xbd };
	size_t start = 0, i = 0;

	while (i < n) {
		bool rep;
		int r;

		if (p[i] < 0x80) {
			if (s->esc == ESC_NONE && p[i] != 0x1b) {
				i++;
				continue;
			}
			s->esc = esc_next(s->esc, p[i], &rep);
			if (rep) {
				vt_write(s, p + start, i - start);
				vt_write(s, (const unsigned char *)"~", 1);
				start = i + 1;
			}
			i++;
			continue;
		}
		r = utf8_seq(p + i, n - i);
		if (r > 0 && !(p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			i += (size_t)r;
			continue;
		}
		vt_write(s, p + start, i - start);
		if (r < 0) {
			memcpy(s->held, p + i, n - i);
			s->held_len = n - i;
			return;
		}
		if (r == 0)
			vt_write(s, replacement, sizeof(replacement));
		i += r > 0 ? (size_t)r : 1;
		start = i;
	}
	vt_write(s, p + start, n - start);
}

void
screen_feed(struct screen *s, const char *buf, size_t len)
{
	unsigned char *joined;
	size_t held = s->held_len;

	if (held == 0) {
		feed_checked(s, (const unsigned char *)buf, len);
		return;
	}
	/* A character begun in the last piece: read with this one. */
	s->held_len = 0;
	if ((joined = malloc(held + len)) == NULL) {
		feed_checked(s, (const unsigned char *)buf, len);
		return;
	}
	memcpy(joined, s->held, held);
	memcpy(joined + held, buf, len);
	feed_checked(s, joined, held + len);
	free(joined);
}

/* The text being built: lines end in '\n'; the current one is open until
 * the next row that does not continue it. */
struct textbuf {
	char *p;
	size_t len, cap;
	bool failed, open;
	size_t line_start, section_start;
};

static void
tb_put(struct textbuf *tb, const char *bytes, size_t n)
{
	if (tb->failed)
		return;
	if (tb->len + n + 1 > tb->cap) {
		size_t cap = tb->cap * 2 > tb->len + n + 1 ? tb->cap * 2 : tb->len + n + 4096;
		char *p = realloc(tb->p, cap);

		if (p == NULL) {
			tb->failed = true;
			return;
		}
		tb->p = p;
		tb->cap = cap;
	}
	memcpy(tb->p + tb->len, bytes, n);
	tb->len += n;
}

static void
tb_end_line(struct textbuf *tb)
{
	if (!tb->open || tb->failed)
		return;
	while (tb->len > tb->line_start && tb->p[tb->len - 1] == ' ')
		tb->len--;
	tb_put(tb, "\n", 1);
	tb->open = false;
	tb->line_start = tb->len;
}

static void
tb_row(struct textbuf *tb, const char *text, size_t n, bool cont)
{
	if (!cont)
		tb_end_line(tb);
	if (!tb->open)
		tb->line_start = tb->len;
	tb->open = true;
	tb_put(tb, text, n);
}

static void
tb_section_begin(struct textbuf *tb)
{
	tb_end_line(tb);
	tb->section_start = tb->len;
}

/* The blank rows at the bottom of a screen are not lines. */
static void
tb_section_end(struct textbuf *tb)
{
	tb_end_line(tb);
	while (!tb->failed && tb->len > tb->section_start && tb->p[tb->len - 1] == '\n' &&
	    (tb->len - 1 == tb->section_start || tb->p[tb->len - 2] == '\n'))
		tb->len--;
	tb->line_start = tb->len;
}

/* The main screen's rows (the scrollback's first) numbered from..to. */
static void
render_main(const struct screen *s, struct textbuf *tb, char *row, unsigned long long from,
    unsigned long long to)
{
	const struct grid *g = &s->grid[0];
	unsigned long long abs = s->pushed - s->sb_count;

	tb_section_begin(tb);
	for (size_t i = 0; i < s->sb_count; i++, abs++) {
		const struct sb_row *r = &s->sb[(s->sb_first + i) % SCREEN_SCROLLBACK];

		if (abs >= from && abs < to)
			tb_row(tb, r->text, r->len, r->cont);
	}
	for (int r = 0; r < g->rows; r++, abs++)
		if (abs >= from && abs < to)
			tb_row(tb, row, row_text(grid_at(g, r, 0), g->cols, row), g->cont[r]);
	tb_section_end(tb);
}

static void
render_grid(const struct grid *g, struct textbuf *tb, char *row)
{
	tb_section_begin(tb);
	for (int r = 0; r < g->rows; r++)
		tb_row(tb, row, row_text(grid_at(g, r, 0), g->cols, row), g->cont[r]);
	tb_section_end(tb);
}

char *
screen_text(struct screen *s, size_t *len)
{
	struct textbuf tb = { 0 };
	int cols = s->grid[0].cols;
	char *row;

	for (int i = 0; i < 2; i++)
		cols = s->grid[i].cols > cols ? s->grid[i].cols : cols;
	cols = s->frame.cols > cols ? s->frame.cols : cols;
	settle_anchor(s);
	if ((row = malloc(row_text_max(cols))) == NULL)
		return NULL;
	tb_put(&tb, "", 0);
	if (s->cur == 1) {
		render_main(s, &tb, row, 0, ~0ULL);
		render_grid(&s->grid[1], &tb, row);
	} else {
		render_main(s, &tb, row, 0, s->have_frame ? s->anchor : ~0ULL);
		if (s->have_frame) {
			render_grid(&s->frame, &tb, row);
			render_main(s, &tb, row, s->anchor, ~0ULL);
		}
	}
	free(row);
	if (tb.failed || tb.p == NULL) {
		free(tb.p);
		return NULL;
	}
	tb.p[tb.len] = '\0';
	*len = tb.len;
	return tb.p;
}
