// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: sequences of nonresident-table operations on small
 * tables, checked step by step against the reference model of
 * nonres_model.h (exact bucket content, results, distances, flags, count).
 *
 *	clang -fsanitize=fuzzer,address,undefined ... fuzz_nonres.c nonres.c
 *
 * Built with -DCP_FUZZ_REPLAY instead, it is a plain program that runs the
 * inputs named on its command line (files or directories): the corpus is
 * replayed by the unit-test builds too, under gcc, ASan and valgrind.
 *
 * -DCP_FUZZ_STRICT=1 checks against the spec's liveness instead of what an
 * 11-bit timestamp expresses (see nonres_model.h).  -DCP_FUZZ_STALE=0
 * turns operation 5 (a remember with a stale eviction time) into a plain
 * remember: the strict target runs so until the stale-@when bug is fixed
 * (with it, it finds that bug within a second).
 *
 * Input: a header byte, then operations until the input ends.
 *
 *	header	bits 0-3: table size (nbuckets from sizes[] below)
 *		bits 4-5: clock start: 0, 2^64 - 2^k, 2^63 - 2^k, raw 8 bytes
 *	op byte	bits 0-2: operation, bits 3-7: its argument
 *	  0, 1	remember key (next byte); bit 3: CP_FLAG_ACTIVE;
 *		bits 4-7: pages to advance the clock by first
 *	  2	lookup key (next byte)
 *	  3	advance the clock by (next byte) << bits 5-7
 *	  4	advance the clock by (next 2 bytes) << bits 4-7
 *	  5	remember key (next byte) stamped (byte after) << bits 5-7
 *		evictions ago: a CPU that lost the race on the clock
 *	  6	compare cp_table_count() with the model
 *	  7	bit 3 set: remember, else look up, a raw 64-bit hash
 *		(next 8 bytes): any bucket, any check value
 *
 * Keys 0..127 are cp_key_hash() of a few small files; keys 128..255 have
 * check values 0..3 only (0 and 1 alike), so a small table is full of
 * same-bucket, same-check collisions.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clockpro/nonres.h"
#include "nonres_model.h"

#ifndef CP_FUZZ_STRICT
#define CP_FUZZ_STRICT 0
#endif
#ifndef CP_FUZZ_STALE
#define CP_FUZZ_STALE 1
#endif

static const u32 sizes[16] = {
	1, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 48, 64, 100, 128,
};

struct input {
	const u8 *p;
	size_t n;
};

static u8 next8(struct input *in)
{
	u8 v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static u64 next_bytes(struct input *in, int nbytes)
{
	u64 v = 0;
	int i;

	for (i = 0; i < nbytes; i++)
		v = v << 8 | next8(in);
	return v;
}

static u64 mix64(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static u64 key_hash(u32 k)
{
	if (k < 128)
		return cp_key_hash(0xffff888012340000UL + (k >> 5) * 0x40,
				   k >> 5, 0, k & 31);
	return (mix64(k) & ~0xffffffffULL) | (k & 3);
}

static void fail(const struct model *m, const char *where)
{
	fprintf(stderr, "fuzz_nonres: %s: %s\n", where, m->err);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .n = size };
	struct cp_table t;
	struct model m;
	u32 *slots, nb;
	u8 hdr;
	u64 raw_key = 1000;

	if (!size)
		return 0;
	hdr = next8(&in);
	nb = sizes[hdr & 15];
	slots = aligned_alloc(64, cp_table_bytes(nb));
	if (!slots)
		abort();
	memset(slots, 0, cp_table_bytes(nb));
	cp_table_init(&t, slots, nb);
	switch ((hdr >> 4) & 3) {
	case 0:
		break;
	case 1:
		cp_atomic64_set(&t.clock,
				(s64)(0 - (1ULL << (next8(&in) & 31))));
		break;
	case 2:
		cp_atomic64_set(&t.clock, (s64)((1ULL << 63) -
					   (1ULL << (next8(&in) & 31))));
		break;
	default:
		cp_atomic64_set(&t.clock, (s64)next_bytes(&in, 8));
		break;
	}
	if (model_init(&m, &t, CP_FUZZ_STRICT))
		abort();

	while (in.n && !m.err[0]) {
		u8 c = next8(&in);
		u64 when, h, k;

		switch (c & 7) {
		case 0:
		case 1:
			k = next8(&in);
			when = cp_table_clock_advance(&t, c >> 4);
			model_remember(&m, k, key_hash((u32)k), when,
				       c & 8 ? CP_FLAG_ACTIVE : 0);
			break;
		case 2:
			k = next8(&in);
			model_lookup(&m, k, key_hash((u32)k));
			break;
		case 3:
			cp_table_clock_advance(&t, (u32)next8(&in) << (c >> 5));
			break;
		case 4:
			cp_table_clock_advance(&t, (u32)next_bytes(&in, 2) <<
					       ((c >> 4) & 15));
			break;
		case 5:
			k = next8(&in);
			when = cp_table_clock(&t) -
			       ((u64)next8(&in) << (c >> 5));
			if (!CP_FUZZ_STALE)
				when = cp_table_clock(&t);
			model_remember(&m, k, key_hash((u32)k), when,
				       c & 8 ? CP_FLAG_ACTIVE : 0);
			break;
		case 6:
			model_count(&m);
			break;
		default:
			h = next_bytes(&in, 8);
			if (c & 8)
				model_remember(&m, raw_key++, h,
					       cp_table_clock_advance(&t, 1),
					       0);
			else
				model_lookup(&m, ~0ULL, h);
			break;
		}
	}
	if (!m.err[0])
		model_count(&m);
	if (m.err[0])
		fail(&m, CP_FUZZ_STRICT ? "strict model" : "model");
	model_free(&m);
	free(slots);
	return 0;
}

#ifdef CP_FUZZ_REPLAY
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	u8 *buf;
	long n;

	if (!f) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, runs = 0, errs = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *de;
		DIR *d;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			errs++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			errs += replay_file(argv[i]);
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i],
				 de->d_name);
			errs += replay_file(path);
			runs++;
		}
		if (d)
			closedir(d);
	}
	printf("fuzz_nonres: replayed %d inputs, %d unreadable\n", runs, errs);
	return errs ? 1 : 0;
}
#endif
