// SPDX-License-Identifier: GPL-2.0
/*
 * Trace loading.
 *
 * Formats (both may be gzip-compressed; zlib reads plain files as well):
 *  - LIRS: one page number per line; a line holding only "*" is a
 *    checkpoint marker and is skipped.
 *  - plain (generated traces): one unsigned integer key per line; "#"
 *    starts a comment, blank lines are ignored.
 * A line may also hold several whitespace-separated keys.  A path of the
 * form "gen:SPEC" generates the trace in memory (see gen.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sim.h"

/* === Key -> dense id map (open addressing, linear probing) === */

struct keymap {
	u64 *keys;
	u32 *ids;
	u64 mask;
	u64 used;
};

static inline u64 km_hash(u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

static void km_init(struct keymap *m, u64 cap)
{
	u64 n = 1024;

	while (n < cap * 2)
		n <<= 1;
	m->keys = xmalloc(n * sizeof(*m->keys));
	m->ids = xmalloc(n * sizeof(*m->ids));
	memset(m->ids, 0xff, n * sizeof(*m->ids));
	m->mask = n - 1;
	m->used = 0;
}

static void km_grow(struct keymap *m)
{
	struct keymap o = *m;
	u64 i;

	km_init(m, (o.mask + 1));
	for (i = 0; i <= o.mask; i++) {
		u64 h;

		if (o.ids[i] == SIM_NIL)
			continue;
		h = km_hash(o.keys[i]) & m->mask;
		while (m->ids[h] != SIM_NIL)
			h = (h + 1) & m->mask;
		m->keys[h] = o.keys[i];
		m->ids[h] = o.ids[i];
		m->used++;
	}
	free(o.keys);
	free(o.ids);
}

/* Returns the id of @key, giving it @next_id if it is new. */
static u32 km_get(struct keymap *m, u64 key, u32 next_id, bool *is_new)
{
	u64 h;

	if ((m->used + 1) * 2 > m->mask + 1)
		km_grow(m);
	h = km_hash(key) & m->mask;
	while (m->ids[h] != SIM_NIL) {
		if (m->keys[h] == key) {
			*is_new = false;
			return m->ids[h];
		}
		h = (h + 1) & m->mask;
	}
	m->keys[h] = key;
	m->ids[h] = next_id;
	m->used++;
	*is_new = true;
	return next_id;
}

static void km_free(struct keymap *m)
{
	free(m->keys);
	free(m->ids);
}

/* === Building a trace from keys === */

static char *trace_basename(const char *path)
{
	static const char *const sfx[] = { ".gz", ".trace", ".trc", ".txt" };
	const char *b = strrchr(path, '/');
	char *name;
	size_t len, i;

	b = b ? b + 1 : path;
	name = strdup(b);
	if (!name)
		die("out of memory");
	for (i = 0; i < ARRAY_SIZE(sfx); i++) {
		len = strlen(name);
		if (len > strlen(sfx[i]) &&
		    !strcmp(name + len - strlen(sfx[i]), sfx[i]))
			name[len - strlen(sfx[i])] = '\0';
	}
	return name;
}

struct trace_builder {
	struct keymap km;
	u32 *seq;
	u32 *rep;
	u64 nseq, cap;
	u64 nrefs;
	u64 *keys;
	u64 kcap;
	u32 npages;
	u64 last;
	bool have_last;
};

static void tb_init(struct trace_builder *b)
{
	memset(b, 0, sizeof(*b));
	km_init(&b->km, 4096);
	b->cap = 1 << 16;
	b->seq = xmalloc(b->cap * sizeof(*b->seq));
	b->rep = xmalloc(b->cap * sizeof(*b->rep));
	b->kcap = 4096;
	b->keys = xmalloc(b->kcap * sizeof(*b->keys));
}

static void tb_add(struct trace_builder *b, u64 key)
{
	bool is_new;
	u32 id;

	b->nrefs++;
	if (b->have_last && key == b->last) {
		if (b->rep[b->nseq - 1] < UINT32_MAX)
			b->rep[b->nseq - 1]++;
		return;		/* a repeat of the previous reference */
	}
	b->last = key;
	b->have_last = true;
	if (b->npages == SIM_NIL - 1)
		die("too many distinct pages");
	id = km_get(&b->km, key, b->npages, &is_new);
	if (is_new) {
		if (b->npages == b->kcap) {
			b->kcap *= 2;
			b->keys = realloc(b->keys, b->kcap * sizeof(*b->keys));
			if (!b->keys)
				die("out of memory");
		}
		b->keys[b->npages++] = key;
	}
	if (b->nseq == b->cap) {
		b->cap *= 2;
		b->seq = realloc(b->seq, b->cap * sizeof(*b->seq));
		b->rep = realloc(b->rep, b->cap * sizeof(*b->rep));
		if (!b->seq || !b->rep)
			die("out of memory");
	}
	b->rep[b->nseq] = 0;
	b->seq[b->nseq++] = id;
}

static struct trace *tb_finish(struct trace_builder *b, const char *path)
{
	struct trace *t = xcalloc(1, sizeof(*t));

	km_free(&b->km);
	t->path = strdup(path);
	t->name = trace_basename(path);
	t->seq = b->seq;
	t->rep = b->rep;
	t->nseq = b->nseq;
	t->nrefs = b->nrefs;
	t->repeats = b->nrefs - b->nseq;
	t->npages = b->npages;
	t->keys = b->keys;
	return t;
}

/* Parse one line; returns false on a malformed token. */
static bool tb_line(struct trace_builder *b, char *line)
{
	char *p = line, *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	while (*p && isspace((unsigned char)*p))
		p++;
	if (p[0] == '*') {
		char *q = p + 1;

		while (*q && isspace((unsigned char)*q))
			q++;
		if (!*q)
			return true;	/* checkpoint marker */
	}
	while (*p) {
		unsigned long long v;
		char *end;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			return false;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || (*end && !isspace((unsigned char)*end)))
			return false;
		tb_add(b, v);
		p = end;
	}
	return true;
}

/**
 * trace_load - read a trace file (or generate one, "gen:SPEC")
 * @path: file name
 *
 * Return: the trace; exits on error.
 */
struct trace *trace_load(const char *path)
{
	struct trace_builder b;
	char buf[4096];
	u64 lineno = 0;
	gzFile f;

	if (!strncmp(path, "gen:", 4)) {
		struct trace *t;
		u64 *keys, n;

		if (gen_trace(path + 4, &keys, &n))
			die("bad generator spec '%s' (see --gen help)",
			    path + 4);
		t = trace_from_keys(path, keys, n);
		free(keys);
		return t;
	}

	f = gzopen(path, "rb");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	gzbuffer(f, 1 << 17);
	tb_init(&b);
	while (gzgets(f, buf, sizeof(buf))) {
		size_t len = strlen(buf);

		lineno++;
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
			die("%s:%llu: line too long", path,
			    (unsigned long long)lineno);
		if (!tb_line(&b, buf))
			die("%s:%llu: not a page number: %s", path,
			    (unsigned long long)lineno, buf);
	}
	{
		int err;
		const char *msg = gzerror(f, &err);

		if (err && err != Z_STREAM_END)
			die("%s: %s", path, msg);
	}
	gzclose(f);
	if (!b.nrefs)
		die("%s: empty trace", path);
	return tb_finish(&b, path);
}

/**
 * trace_from_keys - build a trace from an array of keys
 * @name: trace name (path-like; its basename is used)
 * @keys: the references
 * @n: number of references
 */
struct trace *trace_from_keys(const char *name, const u64 *keys, u64 n)
{
	struct trace_builder b;
	u64 i;

	tb_init(&b);
	for (i = 0; i < n; i++)
		tb_add(&b, keys[i]);
	if (!b.nrefs)
		die("%s: empty trace", name);
	return tb_finish(&b, name);
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t->seq);
	free(t->rep);
	free(t->keys);
	free(t->next_use);
	free(t);
}

/**
 * trace_next_use - for OPT: index in seq[] of the next use of each entry
 * @t: the trace
 *
 * Return: next_use[i] = smallest j > i with seq[j] == seq[i], or nseq if
 * the page is not referenced again.
 */
const u32 *trace_next_use(struct trace *t)
{
	u32 *last;
	u64 i;

	if (t->next_use)
		return t->next_use;
	if (t->nseq >= UINT32_MAX)
		die("%s: trace too long for OPT", t->name);
	t->next_use = xmalloc(t->nseq * sizeof(u32));
	last = xmalloc((size_t)t->npages * sizeof(u32));
	for (i = 0; i < t->npages; i++)
		last[i] = (u32)t->nseq;
	for (i = t->nseq; i-- > 0;) {
		t->next_use[i] = last[t->seq[i]];
		last[t->seq[i]] = (u32)i;
	}
	free(last);
	return t->next_use;
}
