// SPDX-License-Identifier: GPL-2.0
/*
 * cpwork - page-cache workloads for the clockpro VM tests.
 *
 * One static multi-tool binary.  Every subcommand is deterministic given its
 * arguments (and --seed where it draws random numbers) and prints its results
 * as machine-readable lines made of "key value" pairs, e.g.
 *
 *	pass 3 bytes 226492416 read_sectors 12345 hit_ratio 0.7213 ...
 *	hit_ratio 0.7213
 *
 * Hit ratios
 * ----------
 * Two measures are used:
 *
 *  - "hit_ratio" in loop: 1 - 512 * (sectors read, from the block device's
 *    stat file) / bytes requested, clamped at 0.  Cheap and independent of
 *    how the pages are looked up, but readahead makes it approximate (pages
 *    read ahead and later evicted unused count as misses of nothing), and
 *    any other I/O on the same disk skews it.
 *
 *  - "mincore" ratios: before every read, mincore() tells whether the pages
 *    about to be read are resident.  For page-sized reads with readahead off
 *    (POSIX_FADV_RANDOM) this is exact: a resident page is a hit, anything
 *    else is a miss.  With readahead on, a page brought in by readahead
 *    earlier in the same pass counts as a hit.  mincore() on a file mapping
 *    reports page-cache residency for the file's owner or for root.
 *
 * Random workloads (zipf, twopools, hotstream's hot set, phase --random)
 * read single pages with readahead off by default.
 *
 * Data
 * ----
 * "gen" writes the pseudo-random file used by the data disk: the 8-byte
 * little-endian word number i of the file is splitmix64 output number i
 * for the given seed, so any range can be regenerated and checked ("verify",
 * or --verify SEED on the readers), which catches page-cache corruption.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PAGE_SZ		4096ULL
#define GEN_BUF		(1ULL << 20)

static const char *prog = "cpwork";
static const char *subcmd = "";

/* === Utilities === */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s %s: ", prog, subcmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Parse a byte count: decimal or 0x hex, optional K/M/G/T binary suffix. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad size '%s'", s);
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		die("bad size '%s'", s);
	return v * mult;
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number '%s'", s);
	return v;
}

static double parse_double(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end)
		die("bad number '%s'", s);
	return v;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/* === Random numbers === */

static inline uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Word number i of the data stream for @seed (splitmix64 output i). */
static inline uint64_t data_word(uint64_t seed, uint64_t i)
{
	return splitmix64_mix(seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

struct rng {
	uint64_t s[4];
};

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = data_word(seed, i);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n), n > 0; bias is negligible for n << 2^64. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

static void fill_data(uint64_t seed, uint64_t off, unsigned char *buf, size_t len)
{
	/* off and len are multiples of 8 */
	uint64_t w = off / 8;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = data_word(seed, w++);

		memcpy(buf + i, &v, 8);	/* host is little-endian x86-64 */
	}
}

/* === File access, residency and disk statistics === */

struct target {
	const char *path;
	int fd;			/* readahead as requested */
	uint64_t size;
	unsigned char *map;	/* PROT_READ shared mapping, for mincore/--mmap */
	uint64_t map_len;
	char statpath[96];	/* /sys/dev/block/M:m/stat of the backing dev */
	int have_stat;
	unsigned char *buf;	/* PAGE_SZ-aligned I/O buffer */
	size_t buf_len;
	unsigned char *vbuf;	/* expected data for --verify */
	int verify;
	uint64_t verify_seed;
	uint64_t verify_errors;	/* mismatching reads */
};

static void target_open(struct target *t, const char *path, size_t bufsz)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->fd = open(path, O_RDONLY);
	if (t->fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (fstat(t->fd, &st))
		die("stat %s: %s", path, strerror(errno));
	t->size = st.st_size;
	t->map_len = (t->size + PAGE_SZ - 1) & ~(PAGE_SZ - 1);
	if (t->map_len) {
		t->map = mmap(NULL, t->map_len, PROT_READ, MAP_SHARED, t->fd, 0);
		if (t->map == MAP_FAILED)
			die("mmap %s: %s", path, strerror(errno));
	}
	snprintf(t->statpath, sizeof(t->statpath), "/sys/dev/block/%u:%u/stat",
		 major(st.st_dev), minor(st.st_dev));
	t->have_stat = access(t->statpath, R_OK) == 0;
	t->buf_len = bufsz;
	if (posix_memalign((void **)&t->buf, PAGE_SZ, bufsz))
		die("out of memory");
	memset(t->buf, 0, bufsz);
}

static void target_verify(struct target *t, uint64_t seed)
{
	t->verify = 1;
	t->verify_seed = seed;
	if (posix_memalign((void **)&t->vbuf, PAGE_SZ, t->buf_len))
		die("out of memory");
}

static void check_range(struct target *t, uint64_t off, uint64_t len, const char *what)
{
	if (off % PAGE_SZ)
		die("%s offset %" PRIu64 " is not page aligned", what, off);
	if (len == 0 || off + len > t->size || off + len < off)
		die("%s range [%" PRIu64 ", +%" PRIu64 ") outside %s (size %" PRIu64 ")",
		    what, off, len, t->path, t->size);
}

static void set_advice(int fd, int advice)
{
	int err = posix_fadvise(fd, 0, 0, advice);

	if (err)
		die("posix_fadvise: %s", strerror(err));
}

/* Sectors read so far from the device holding the file (0 if unknown). */
static uint64_t sectors_read(struct target *t)
{
	unsigned long long f[3] = { 0, 0, 0 };
	FILE *f_stat;

	if (!t->have_stat)
		return 0;
	f_stat = fopen(t->statpath, "r");
	if (!f_stat)
		return 0;
	if (fscanf(f_stat, "%llu %llu %llu", &f[0], &f[1], &f[2]) != 3)
		f[2] = 0;
	fclose(f_stat);
	return f[2];
}

/* Number of resident pages in [off, off + len). */
static uint64_t resident_pages(struct target *t, uint64_t off, uint64_t len)
{
	static unsigned char *vec;
	static size_t vec_len;
	uint64_t start = off & ~(PAGE_SZ - 1);
	uint64_t end = (off + len + PAGE_SZ - 1) & ~(PAGE_SZ - 1);
	uint64_t n = (end - start) / PAGE_SZ, cnt = 0;
	const uint64_t chunk = 1 << 18;	/* pages per mincore call */

	if (!t->map)
		return 0;
	if (!vec) {
		vec_len = chunk;
		vec = malloc(vec_len);
		if (!vec)
			die("out of memory");
	}
	for (uint64_t p = 0; p < n; p += chunk) {
		uint64_t m = n - p < chunk ? n - p : chunk;

		if (mincore(t->map + start + p * PAGE_SZ, m * PAGE_SZ, vec))
			die("mincore: %s", strerror(errno));
		for (uint64_t i = 0; i < m; i++)
			cnt += vec[i] & 1;
	}
	return cnt;
}

static inline int page_resident(struct target *t, uint64_t off)
{
	unsigned char v = 0;

	if (mincore(t->map + (off & ~(PAGE_SZ - 1)), PAGE_SZ, &v))
		die("mincore: %s", strerror(errno));
	return v & 1;
}

static void do_verify(struct target *t, const unsigned char *data, uint64_t off, size_t len)
{
	/* compare whole 8-byte words only */
	uint64_t a = (off + 7) & ~7ULL, e = (off + len) & ~7ULL;

	if (!t->verify || e <= a)
		return;
	fill_data(t->verify_seed, a, t->vbuf, e - a);
	if (memcmp(data + (a - off), t->vbuf, e - a))
		t->verify_errors++;
}

/* Read [off, off + len) into t->buf (len <= buf_len), fully. */
static void read_at(struct target *t, uint64_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(t->fd, t->buf + done, len - done, off + done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("pread %s at %" PRIu64 ": %s", t->path, off + done, strerror(errno));
		}
		if (r == 0)
			die("unexpected EOF in %s at %" PRIu64, t->path, off + done);
		done += r;
	}
	do_verify(t, t->buf, off, len);
}

/* Touch every page of [off, off + len) through the mapping. */
static uint64_t touch_at(struct target *t, uint64_t off, size_t len)
{
	volatile const unsigned char *p = t->map;
	uint64_t sum = 0;

	for (uint64_t o = off; o < off + len; o += PAGE_SZ)
		sum += p[o];
	do_verify(t, t->map + off, off, len);
	return sum;
}

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* Read one field of /proc/vmstat, or 0. */
static uint64_t vmstat(const char *name)
{
	char key[128];
	unsigned long long v;
	uint64_t res = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%127s %llu", key, &v) == 2) {
		if (!strcmp(key, name)) {
			res = v;
			break;
		}
	}
	fclose(f);
	return res;
}

/* Read one field of /proc/meminfo in kB, or 0. */
static uint64_t meminfo_kb(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	uint64_t res = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, n) && line[n] == ':') {
			res = strtoull(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return res;
}

/* === Option parsing shared by the subcommands === */

struct opts {
	int readahead;		/* -1: subcommand default */
	int use_mmap;
	int random_order;
	int verify;
	uint64_t verify_seed;
	uint64_t seed;
	int have_seed;
	uint64_t bs;
	uint64_t offset;
	unsigned int phases;
	double small_frac;
	uint64_t hot_per_mb;
	unsigned int warm;
	int read_only;
};

static const char *usage_text =
"usage: cpwork SUBCOMMAND ARGS [OPTIONS]\n"
"  loop FILE BYTES PASSES [--no-readahead] [--mmap] [--bs N] [--offset OFF]\n"
"  hotstream FILE HOT_BYTES STREAM_OFFSET STREAM_BYTES [--hot-per-mb N] [--warm P]\n"
"  zipf FILE BYTES ALPHA NREADS SEED [--offset OFF]\n"
"  twopools FILE SMALL_BYTES LARGE_OFFSET LARGE_BYTES NREADS [--small-frac F]\n"
"  phase FILE REGION_BYTES OFF1 OFF2 PASSES [--random]\n"
"      (a later pass with misses also prints misses_by_tenth PHASE PASS\n"
"       and the misses in each tenth of the region)\n"
"  moving FILE REGION_BYTES OFF1 OFF2 NREADS   uniform random reads over\n"
"      one region, then as many over another (a working set that moves)\n"
"  zigzag FILE BYTES PASSES [--offset OFF]\n"
"  anon MB PASSES [--read-only]\n"
"  cachesize FILE OFFSET BYTES     stream and sample the file LRU size\n"
"  pread FILE BYTES NREADS [--bs N] [--offset OFF] [--random] [--seed S]\n"
"      NREADS reads of --bs bytes (4096), nothing else; prints cpu_ns\n"
"  gen FILE BYTES SEED             write the pseudo-random data file\n"
"  verify FILE OFFSET BYTES SEED   check a range of a gen'ed file\n"
"common options: --seed S (default 1), --phases K (default 4),\n"
"  --readahead / --no-readahead, --verify SEED (check data read)\n"
"sizes take K/M/G suffixes (binary).  Output: 'key value' pairs per line.\n";

static void __attribute__((noreturn)) usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

/*
 * Split argv into positionals (returned in pos[], count in *npos) and
 * options (parsed into o).
 */
static void parse_args(int argc, char **argv, struct opts *o, char **pos, int *npos, int maxpos)
{
	*npos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
#define NEXT() ((i + 1 < argc) ? argv[++i] : (die("%s needs a value", a), (char *)0))
		if (a[0] != '-' || a[1] != '-') {
			if (*npos >= maxpos)
				die("too many arguments (at '%s')", a);
			pos[(*npos)++] = argv[i];
		} else if (!strcmp(a, "--readahead")) {
			o->readahead = 1;
		} else if (!strcmp(a, "--no-readahead")) {
			o->readahead = 0;
		} else if (!strcmp(a, "--mmap")) {
			o->use_mmap = 1;
		} else if (!strcmp(a, "--random")) {
			o->random_order = 1;
		} else if (!strcmp(a, "--read-only")) {
			o->read_only = 1;
		} else if (!strcmp(a, "--verify")) {
			o->verify = 1;
			o->verify_seed = parse_u64(NEXT());
		} else if (!strcmp(a, "--seed")) {
			o->seed = parse_u64(NEXT());
			o->have_seed = 1;
		} else if (!strcmp(a, "--bs")) {
			o->bs = parse_size(NEXT());
		} else if (!strcmp(a, "--offset")) {
			o->offset = parse_size(NEXT());
		} else if (!strcmp(a, "--phases")) {
			o->phases = parse_u64(NEXT());
		} else if (!strcmp(a, "--small-frac")) {
			o->small_frac = parse_double(NEXT());
		} else if (!strcmp(a, "--hot-per-mb")) {
			o->hot_per_mb = parse_u64(NEXT());
		} else if (!strcmp(a, "--warm")) {
			o->warm = parse_u64(NEXT());
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
		} else {
			die("unknown option '%s'", a);
		}
#undef NEXT
	}
	if (o->phases == 0)
		die("--phases must be >= 1");
}

static void need_args(int npos, int want)
{
	if (npos != want)
		die("expected %d arguments, got %d (try --help)", want, npos);
}

static void print_common(const char *name, struct target *t)
{
	printf("workload %s\n", name);
	if (t) {
		printf("file %s\n", t->path);
		printf("file_size %" PRIu64 "\n", t->size);
		printf("disk_stat %s\n", t->have_stat ? t->statpath : "none");
	}
}

static void print_verify(struct target *t)
{
	if (t->verify)
		printf("verify_errors %" PRIu64 "\n", t->verify_errors);
}

/* Per-phase hit accounting for the random-read workloads. */
struct phases {
	unsigned int n;
	uint64_t per;		/* reads per phase (last takes the rest) */
	uint64_t *reads, *hits;
};

static void phases_init(struct phases *p, unsigned int n, uint64_t total)
{
	p->n = n;
	p->per = total / n ? total / n : 1;
	p->reads = calloc(n, sizeof(*p->reads));
	p->hits = calloc(n, sizeof(*p->hits));
	if (!p->reads || !p->hits)
		die("out of memory");
}

static inline void phases_add(struct phases *p, uint64_t idx, int hit)
{
	uint64_t ph = idx / p->per;

	if (ph >= p->n)
		ph = p->n - 1;
	p->reads[ph]++;
	p->hits[ph] += hit;
}

static void phases_print(struct phases *p, const char *prefix)
{
	for (unsigned int i = 0; i < p->n; i++)
		printf("%sphase %u reads %" PRIu64 " hits %" PRIu64 " hit_ratio %.4f\n",
		       prefix, i + 1, p->reads[i], p->hits[i], ratio(p->hits[i], p->reads[i]));
}

/* Read one page at @off with a residency check first; returns 1 on a hit. */
static inline int read_page_checked(struct target *t, uint64_t off)
{
	int hit = page_resident(t, off);

	read_at(t, off, PAGE_SZ);
	return hit;
}

/* === loop === */

static int cmd_loop(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4 };
	char *pos[3];
	int npos;
	struct target t;
	uint64_t bytes, passes, off0;
	double sum_hr = 0, sum_mc = 0, sum_steady = 0;
	uint64_t sink = 0, tot_sectors = 0, lru_sum = 0, lru_n = 0;
	uint64_t lru_min = 0, lru_max = 0;

	parse_args(argc, argv, &o, pos, &npos, 3);
	need_args(npos, 3);
	bytes = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	passes = parse_u64(pos[2]);
	if (!o.bs)
		o.bs = o.readahead ? (1 << 20) : PAGE_SZ;
	if (o.bs % PAGE_SZ)
		die("--bs must be a multiple of %llu", PAGE_SZ);
	target_open(&t, pos[0], o.bs);
	off0 = o.offset;
	check_range(&t, off0, bytes, "loop");
	if (o.verify)
		target_verify(&t, o.verify_seed);
	set_advice(t.fd, o.readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	if (o.use_mmap && madvise(t.map + off0, bytes, o.readahead ? MADV_NORMAL : MADV_RANDOM))
		die("madvise: %s", strerror(errno));

	print_common("loop", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\npasses %" PRIu64 "\n", off0, bytes, passes);
	printf("readahead %d\nmmap %d\nbs %" PRIu64 "\n", o.readahead, o.use_mmap, o.bs);

	for (uint64_t p = 1; p <= passes; p++) {
		uint64_t s0 = sectors_read(&t), s1, res = 0, pages = 0;
		long mf0 = majflt();
		double t0 = now(), hr, mc;

		for (uint64_t off = off0; off < off0 + bytes; off += o.bs) {
			uint64_t n = off0 + bytes - off < o.bs ? off0 + bytes - off : o.bs;

			/*
			 * The file LRU's size, sampled every MiB after the first
			 * pass: the resident size R that the ideal loop distance
			 * F - R needs, averaged rather than caught at one moment
			 * of kswapd's sawtooth.
			 */
			if (p > 1 && (off - off0) % (1 << 20) < o.bs) {
				uint64_t lru = meminfo_kb("Active(file)") +
					       meminfo_kb("Inactive(file)");

				lru_sum += lru;
				lru_min = lru_n && lru_min < lru ? lru_min : lru;
				lru_max = lru > lru_max ? lru : lru_max;
				lru_n++;
			}
			res += resident_pages(&t, off, n);
			pages += n / PAGE_SZ;
			if (o.use_mmap)
				sink += touch_at(&t, off, n);
			else
				read_at(&t, off, n);
		}
		s1 = sectors_read(&t);
		tot_sectors += s1 - s0;
		hr = 1.0 - (double)(s1 - s0) * 512.0 / (double)bytes;
		if (hr < 0)
			hr = 0;
		mc = ratio(res, pages);
		sum_hr += hr;
		sum_mc += mc;
		if (p > 1 || passes == 1)
			sum_steady += hr;
		printf("pass %" PRIu64 " bytes %" PRIu64 " read_sectors %" PRIu64
		       " hit_ratio %.4f mincore_hit_ratio %.4f majflt %ld secs %.3f\n",
		       p, bytes, s1 - s0, hr, mc, majflt() - mf0, now() - t0);
	}
	printf("read_sectors %" PRIu64 "\n", tot_sectors);
	printf("hit_ratio_mean %.4f\n", passes ? sum_hr / passes : 0);
	printf("hit_ratio_steady %.4f\n",
	       passes > 1 ? sum_steady / (passes - 1) : sum_steady);
	printf("mincore_hit_ratio_mean %.4f\n", passes ? sum_mc / passes : 0);
	if (lru_n)
		printf("file_lru_kb_avg %" PRIu64 "\nfile_lru_kb_min %" PRIu64
		       "\nfile_lru_kb_max %" PRIu64 "\n", lru_sum / lru_n, lru_min, lru_max);
	print_verify(&t);
	if (sink == 42)	/* keep the touches */
		fputc('\n', stderr);
	return t.verify_errors ? 1 : 0;
}

/* === pread === */

/* This thread's CPU time in ns: exact (the scheduler's runtime, brought up to date). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		die("clock_gettime: %s", strerror(errno));
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The CPU-cost benchmark's reader (selftests/vm/tests/cost.sh): NREADS
 * preads of --bs bytes over [OFF, OFF + BYTES), in order and wrapping
 * around (--random: at random --bs-aligned offsets), with nothing else in
 * the loop: no residency checks, no statistics files, so that the reads
 * are all the CPU time measured.  cpu_ns is the thread's on-CPU time over
 * the loop alone (CLOCK_THREAD_CPUTIME_ID: the scheduler's sum_exec_runtime,
 * brought up to date at the reading), direct reclaim and interrupts that
 * land in it included; under qemu -icount shift=0 it counts instructions.
 */
static int cmd_pread(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4 };
	char *pos[3];
	int npos;
	struct target t;
	struct rng r;
	uint64_t bytes, nreads, off0, blocks, off, c0, c1;
	double t0;

	parse_args(argc, argv, &o, pos, &npos, 3);
	need_args(npos, 3);
	bytes = parse_size(pos[1]);
	nreads = parse_u64(pos[2]);
	if (!o.bs)
		o.bs = PAGE_SZ;
	if (o.bs % PAGE_SZ)
		die("--bs must be a multiple of %llu", PAGE_SZ);
	bytes -= bytes % o.bs;
	target_open(&t, pos[0], o.bs);
	off0 = o.offset;
	check_range(&t, off0, bytes, "pread");
	set_advice(t.fd, o.readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	rng_seed(&r, o.seed);
	blocks = bytes / o.bs;

	print_common("pread", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\nbs %" PRIu64 "\nrandom %d\nreadahead %d\n",
	       off0, bytes, o.bs, o.random_order, o.readahead);
	t0 = now();
	c0 = thread_cpu_ns();
	off = 0;
	for (uint64_t i = 0; i < nreads; i++) {
		if (o.random_order) {
			off = rng_below(&r, blocks) * o.bs;
		} else if (off >= bytes) {
			off = 0;
		}
		read_at(&t, off0 + off, o.bs);
		off += o.bs;
	}
	c1 = thread_cpu_ns();
	printf("reads %" PRIu64 "\n", nreads);
	printf("pages %" PRIu64 "\n", nreads * (uint64_t)(o.bs / PAGE_SZ));
	printf("secs %.3f\n", now() - t0);
	printf("cpu_ns %" PRIu64 "\n", c1 - c0);
	return 0;
}

/* === zigzag === */

static int cmd_zigzag(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4 };
	char *pos[3];
	int npos;
	struct target t;
	uint64_t bytes, passes, npages, tot_r = 0, tot_h = 0, steady_r = 0, steady_h = 0;

	parse_args(argc, argv, &o, pos, &npos, 3);
	need_args(npos, 3);
	bytes = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	passes = parse_u64(pos[2]);
	target_open(&t, pos[0], PAGE_SZ);
	check_range(&t, o.offset, bytes, "zigzag");
	if (o.verify)
		target_verify(&t, o.verify_seed);
	set_advice(t.fd, o.readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	npages = bytes / PAGE_SZ;

	print_common("zigzag", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\npasses %" PRIu64 "\nreadahead %d\n",
	       o.offset, bytes, passes, o.readahead);
	for (uint64_t p = 1; p <= passes; p++) {
		int fwd = p % 2;
		uint64_t hits = 0, s0 = sectors_read(&t);
		double t0 = now();

		for (uint64_t i = 0; i < npages; i++) {
			uint64_t pg = fwd ? i : npages - 1 - i;

			hits += read_page_checked(&t, o.offset + pg * PAGE_SZ);
		}
		tot_r += npages;
		tot_h += hits;
		if (p > 1) {
			steady_r += npages;
			steady_h += hits;
		}
		printf("pass %" PRIu64 " dir %s reads %" PRIu64 " hits %" PRIu64
		       " hit_ratio %.4f read_sectors %" PRIu64 " secs %.3f\n",
		       p, fwd ? "fwd" : "rev", npages, hits, ratio(hits, npages),
		       sectors_read(&t) - s0, now() - t0);
	}
	printf("reads %" PRIu64 "\nhits %" PRIu64 "\nhit_ratio %.4f\n", tot_r, tot_h,
	       ratio(tot_h, tot_r));
	printf("hit_ratio_steady %.4f\n", ratio(steady_h, steady_r));
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/* === zipf === */

static uint64_t *permutation(uint64_t n, struct rng *r)
{
	uint64_t *perm = malloc(n * sizeof(*perm));

	if (!perm)
		die("out of memory");
	for (uint64_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = rng_below(r, i + 1), tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	return perm;
}

static int cmd_zipf(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4 };
	char *pos[5];
	int npos;
	struct target t;
	struct rng r;
	struct phases ph;
	uint64_t bytes, nreads, npages, seed, *perm, hits = 0, distinct = 0;
	double alpha, *cdf, total = 0, t0;
	unsigned char *seen;

	parse_args(argc, argv, &o, pos, &npos, 5);
	need_args(npos, 5);
	bytes = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	alpha = parse_double(pos[2]);
	nreads = parse_u64(pos[3]);
	seed = parse_u64(pos[4]);
	if (alpha < 0)
		die("ALPHA must be >= 0");
	target_open(&t, pos[0], PAGE_SZ);
	check_range(&t, o.offset, bytes, "zipf");
	if (o.verify)
		target_verify(&t, o.verify_seed);
	set_advice(t.fd, o.readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	npages = bytes / PAGE_SZ;

	/* rank k (0-based) has weight 1/(k+1)^alpha; ranks map to pages via perm */
	rng_seed(&r, seed);
	perm = permutation(npages, &r);
	cdf = malloc(npages * sizeof(*cdf));
	seen = calloc(npages, 1);
	if (!cdf || !seen)
		die("out of memory");
	for (uint64_t k = 0; k < npages; k++) {
		total += pow((double)(k + 1), -alpha);
		cdf[k] = total;
	}
	phases_init(&ph, o.phases, nreads);

	print_common("zipf", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\nalpha %.4f\nnreads %" PRIu64
	       "\nseed %" PRIu64 "\nreadahead %d\n", o.offset, bytes, alpha, nreads, seed,
	       o.readahead);
	t0 = now();
	uint64_t s0 = sectors_read(&t);

	for (uint64_t i = 0; i < nreads; i++) {
		double u = rng_unit(&r) * total;
		uint64_t lo = 0, hi = npages - 1, pg;
		int hit;

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		pg = perm[lo];
		if (!seen[pg]) {
			seen[pg] = 1;
			distinct++;
		}
		hit = read_page_checked(&t, o.offset + pg * PAGE_SZ);
		hits += hit;
		phases_add(&ph, i, hit);
	}
	phases_print(&ph, "");
	printf("reads %" PRIu64 "\nhits %" PRIu64 "\nhit_ratio %.4f\n", nreads, hits,
	       ratio(hits, nreads));
	printf("distinct_pages %" PRIu64 "\nread_sectors %" PRIu64 "\nsecs %.3f\n", distinct,
	       sectors_read(&t) - s0, now() - t0);
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/* === twopools === */

static int cmd_twopools(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4, .small_frac = 0.5 };
	char *pos[5];
	int npos;
	struct target t;
	struct rng r;
	struct phases ph;
	uint64_t small, loff, large, nreads, sp, lp;
	uint64_t sr = 0, sh = 0, lr = 0, lh = 0;
	double t0;

	parse_args(argc, argv, &o, pos, &npos, 5);
	need_args(npos, 5);
	small = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	loff = parse_size(pos[2]);
	large = parse_size(pos[3]) & ~(PAGE_SZ - 1);
	nreads = parse_u64(pos[4]);
	if (o.small_frac < 0 || o.small_frac > 1)
		die("--small-frac must be in [0, 1]");
	target_open(&t, pos[0], PAGE_SZ);
	check_range(&t, o.offset, small, "small pool");
	check_range(&t, loff, large, "large pool");
	if (loff < o.offset + small && o.offset < loff + large)
		die("pools overlap");
	if (o.verify)
		target_verify(&t, o.verify_seed);
	set_advice(t.fd, o.readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	sp = small / PAGE_SZ;
	lp = large / PAGE_SZ;
	rng_seed(&r, o.seed);
	phases_init(&ph, o.phases, nreads);

	print_common("twopools", &t);
	printf("small_offset %" PRIu64 "\nsmall_bytes %" PRIu64 "\nlarge_offset %" PRIu64
	       "\nlarge_bytes %" PRIu64 "\nnreads %" PRIu64 "\nsmall_frac %.4f\nseed %" PRIu64
	       "\nreadahead %d\n", o.offset, small, loff, large, nreads, o.small_frac, o.seed,
	       o.readahead);
	t0 = now();
	uint64_t s0 = sectors_read(&t);

	for (uint64_t i = 0; i < nreads; i++) {
		int is_small = rng_unit(&r) < o.small_frac, hit;
		uint64_t off;

		if (is_small)
			off = o.offset + rng_below(&r, sp) * PAGE_SZ;
		else
			off = loff + rng_below(&r, lp) * PAGE_SZ;
		hit = read_page_checked(&t, off);
		if (is_small) {
			sr++;
			sh += hit;
		} else {
			lr++;
			lh += hit;
		}
		phases_add(&ph, i, hit);
	}
	phases_print(&ph, "");
	printf("small_reads %" PRIu64 " small_hits %" PRIu64 " small_hit_ratio %.4f\n", sr, sh,
	       ratio(sh, sr));
	printf("large_reads %" PRIu64 " large_hits %" PRIu64 " large_hit_ratio %.4f\n", lr, lh,
	       ratio(lh, lr));
	printf("small_resident_after %.4f\n", ratio(resident_pages(&t, o.offset, small), sp));
	printf("large_resident_after %.4f\n", ratio(resident_pages(&t, loff, large), lp));
	printf("reads %" PRIu64 "\nhits %" PRIu64 "\nhit_ratio %.4f\n", nreads, sh + lh,
	       ratio(sh + lh, nreads));
	printf("read_sectors %" PRIu64 "\nsecs %.3f\n", sectors_read(&t) - s0, now() - t0);
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/*
 * FILE REGION_BYTES OFF1 OFF2 N: two regions of one file (phase, moving).
 * Opens the file and checks both ranges; returns N.
 */
static uint64_t two_regions_open(int argc, char **argv, struct opts *o, struct target *t,
				 uint64_t *region, uint64_t off[2])
{
	char *pos[5];
	int npos;
	uint64_t n;

	parse_args(argc, argv, o, pos, &npos, 5);
	need_args(npos, 5);
	*region = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	off[0] = parse_size(pos[2]);
	off[1] = parse_size(pos[3]);
	n = parse_u64(pos[4]);
	target_open(t, pos[0], PAGE_SZ);
	check_range(t, off[0], *region, "region 1");
	check_range(t, off[1], *region, "region 2");
	if (o->verify)
		target_verify(t, o->verify_seed);
	set_advice(t->fd, o->readahead ? POSIX_FADV_NORMAL : POSIX_FADV_RANDOM);
	return n;
}

/* === phase === */

static int cmd_phase(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4 };
	struct target t;
	struct rng r;
	uint64_t region, off[2], passes, npages, *perm = NULL;
	uint64_t tot_r = 0, tot_h = 0;

	passes = two_regions_open(argc, argv, &o, &t, &region, off);
	npages = region / PAGE_SZ;
	rng_seed(&r, o.seed);

	print_common("phase", &t);
	printf("region_bytes %" PRIu64 "\noffset1 %" PRIu64 "\noffset2 %" PRIu64
	       "\npasses %" PRIu64 "\norder %s\nseed %" PRIu64 "\nreadahead %d\n",
	       region, off[0], off[1], passes, o.random_order ? "random" : "sequential",
	       o.seed, o.readahead);
	for (int ph = 0; ph < 2; ph++) {
		uint64_t pr = 0, phh = 0, sr = 0, sh = 0;

		for (uint64_t p = 1; p <= passes; p++) {
			uint64_t hits = 0, s0 = sectors_read(&t), tenth[10] = { 0 };
			double t0 = now();

			if (o.random_order) {
				free(perm);
				perm = permutation(npages, &r);
			}
			for (uint64_t i = 0; i < npages; i++) {
				uint64_t pg = perm ? perm[i] : i;
				int hit = read_page_checked(&t, off[ph] + pg * PAGE_SZ);

				hits += hit;
				if (!hit)
					tenth[pg * 10 / npages]++;
			}
			if (p > 1 && hits < npages) {
				/* where in the region the misses of a later pass were */
				printf("misses_by_tenth %d %" PRIu64, ph + 1, p);
				for (int k = 0; k < 10; k++)
					printf(" %" PRIu64, tenth[k]);
				printf("\n");
			}
			pr += npages;
			phh += hits;
			if (p > 1) {
				sr += npages;
				sh += hits;
			}
			printf("phase %d pass %" PRIu64 " reads %" PRIu64 " hits %" PRIu64
			       " hit_ratio %.4f read_sectors %" PRIu64 " secs %.3f\n",
			       ph + 1, p, npages, hits, ratio(hits, npages),
			       sectors_read(&t) - s0, now() - t0);
		}
		printf("phase%d_hit_ratio %.4f\n", ph + 1, ratio(phh, pr));
		printf("phase%d_hit_ratio_steady %.4f\n", ph + 1, ratio(sh, sr));
		printf("phase%d_resident_after %.4f\n", ph + 1,
		       ratio(resident_pages(&t, off[ph], region), npages));
		tot_r += pr;
		tot_h += phh;
	}
	printf("reads %" PRIu64 "\nhits %" PRIu64 "\nhit_ratio %.4f\n", tot_r, tot_h,
	       ratio(tot_h, tot_r));
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/* === moving === */

/*
 * A working set that moves while in use: NREADS uniform random page reads
 * over one region, then NREADS over another.  The second half of the
 * second region's reads is the steady state after the move.
 */
static int cmd_moving(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4 };
	struct target t;
	struct rng r;
	uint64_t region, off[2], nreads, npages;

	nreads = two_regions_open(argc, argv, &o, &t, &region, off);
	npages = region / PAGE_SZ;
	if (!npages)
		die("empty region");
	rng_seed(&r, o.seed);

	print_common("moving", &t);
	printf("region_bytes %" PRIu64 "\noffset1 %" PRIu64 "\noffset2 %" PRIu64
	       "\nnreads %" PRIu64 "\nseed %" PRIu64 "\nreadahead %d\n",
	       region, off[0], off[1], nreads, o.seed, o.readahead);
	for (int ph = 0; ph < 2; ph++) {
		uint64_t h1 = 0, h2 = 0, s0 = sectors_read(&t);
		double t0 = now();

		for (uint64_t i = 0; i < nreads; i++) {
			uint64_t pg = rng_below(&r, npages);
			int hit = read_page_checked(&t, off[ph] + pg * PAGE_SZ);

			if (i < nreads / 2)
				h1 += hit;
			else
				h2 += hit;
		}
		printf("region %d first_half %.4f second_half %.4f read_sectors %" PRIu64
		       " secs %.3f\n", ph + 1, ratio(h1, nreads / 2),
		       ratio(h2, nreads - nreads / 2), sectors_read(&t) - s0, now() - t0);
		printf("region%d_hit_ratio_steady %.4f\n", ph + 1,
		       ratio(h2, nreads - nreads / 2));
	}
	/* what the move left in memory: the old region should be gone */
	printf("region1_resident_after %.4f\nregion2_resident_after %.4f\n",
	       ratio(resident_pages(&t, off[0], region), npages),
	       ratio(resident_pages(&t, off[1], region), npages));
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/* === hotstream === */

static int cmd_hotstream(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4, .hot_per_mb = 64, .warm = 2 };
	char *pos[4];
	int npos;
	struct target hot, st;
	struct rng r;
	struct phases ph;
	uint64_t hot_bytes, soff, sbytes, hpages, nhot, done_hot = 0, hits = 0;
	const uint64_t chunk = 64 << 10;
	double t0;

	parse_args(argc, argv, &o, pos, &npos, 4);
	need_args(npos, 4);
	hot_bytes = parse_size(pos[1]) & ~(PAGE_SZ - 1);
	soff = parse_size(pos[2]);
	sbytes = parse_size(pos[3]) & ~(PAGE_SZ - 1);
	/* two opens: random advice for the hot set, normal readahead for the stream */
	target_open(&hot, pos[0], PAGE_SZ);
	target_open(&st, pos[0], chunk);
	check_range(&hot, o.offset, hot_bytes, "hot set");
	check_range(&st, soff, sbytes, "stream");
	if (soff < o.offset + hot_bytes && o.offset < soff + sbytes)
		die("hot set and stream overlap");
	if (o.verify) {
		target_verify(&hot, o.verify_seed);
		target_verify(&st, o.verify_seed);
	}
	set_advice(hot.fd, POSIX_FADV_RANDOM);
	set_advice(st.fd, o.readahead ? POSIX_FADV_SEQUENTIAL : POSIX_FADV_RANDOM);
	hpages = hot_bytes / PAGE_SZ;
	nhot = o.hot_per_mb * sbytes / (1 << 20);
	rng_seed(&r, o.seed);
	phases_init(&ph, o.phases, nhot ? nhot : 1);

	print_common("hotstream", &hot);
	printf("hot_offset %" PRIu64 "\nhot_bytes %" PRIu64 "\nstream_offset %" PRIu64
	       "\nstream_bytes %" PRIu64 "\nhot_per_mb %" PRIu64 "\nwarm_passes %u\nseed %" PRIu64
	       "\nstream_readahead %d\n", o.offset, hot_bytes, soff, sbytes, o.hot_per_mb, o.warm,
	       o.seed, o.readahead);

	for (unsigned int w = 1; w <= o.warm; w++) {
		uint64_t wh = 0;

		for (uint64_t i = 0; i < hpages; i++)
			wh += read_page_checked(&hot, o.offset + i * PAGE_SZ);
		printf("warm_pass %u reads %" PRIu64 " hits %" PRIu64 " hit_ratio %.4f\n", w,
		       hpages, wh, ratio(wh, hpages));
	}
	printf("hot_resident_before %.4f\n", ratio(resident_pages(&hot, o.offset, hot_bytes),
						  hpages));
	t0 = now();
	uint64_t s0 = sectors_read(&st), sres = 0;

	for (uint64_t so = 0; so < sbytes; so += chunk) {
		uint64_t n = sbytes - so < chunk ? sbytes - so : chunk, want;

		sres += resident_pages(&st, soff + so, n);
		read_at(&st, soff + so, n);
		want = nhot * (so + n) / sbytes;
		while (done_hot < want) {
			int hit = read_page_checked(&hot, o.offset + rng_below(&r, hpages) * PAGE_SZ);

			hits += hit;
			phases_add(&ph, done_hot, hit);
			done_hot++;
		}
	}
	phases_print(&ph, "");
	printf("hot_reads %" PRIu64 "\nhot_hits %" PRIu64 "\nhot_hit_ratio %.4f\n", done_hot, hits,
	       ratio(hits, done_hot));
	printf("hot_resident_after %.4f\n", ratio(resident_pages(&hot, o.offset, hot_bytes),
						 hpages));
	printf("stream_mincore_hit_ratio %.4f\n", ratio(sres, sbytes / PAGE_SZ));
	printf("read_sectors %" PRIu64 "\nsecs %.3f\n", sectors_read(&st) - s0, now() - t0);
	hot.verify_errors += st.verify_errors;
	print_verify(&hot);
	return hot.verify_errors ? 1 : 0;
}

/* === anon === */

static int cmd_anon(int argc, char **argv)
{
	struct opts o = { .readahead = 0, .seed = 1, .phases = 4 };
	char *pos[2];
	int npos;
	uint64_t mb, passes, bytes, npages, errors = 0;
	unsigned char *m;

	parse_args(argc, argv, &o, pos, &npos, 2);
	need_args(npos, 2);
	mb = parse_u64(pos[0]);
	passes = parse_u64(pos[1]);
	bytes = mb << 20;
	npages = bytes / PAGE_SZ;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap %" PRIu64 " MiB: %s", mb, strerror(errno));

	print_common("anon", NULL);
	printf("mb %" PRIu64 "\npasses %" PRIu64 "\nseed %" PRIu64 "\nread_only %d\n", mb, passes,
	       o.seed, o.read_only);
	/*
	 * Each page holds two words: data_word(seed, page) and the pass that
	 * last wrote it.  Every pass checks both; writing passes update the
	 * second, dirtying the page so it must be swapped out again.
	 */
	for (uint64_t p = 1; p <= passes; p++) {
		uint64_t in0 = vmstat("pswpin"), out0 = vmstat("pswpout"), perr = 0;
		long mf0 = majflt();
		double t0 = now();
		int write = p == 1 || !o.read_only;

		for (uint64_t i = 0; i < npages; i++) {
			uint64_t *w = (uint64_t *)(m + i * PAGE_SZ);
			uint64_t expect_pass = o.read_only ? 1 : p - 1;

			if (p > 1 && (w[0] != data_word(o.seed, i) || w[1] != expect_pass))
				perr++;
			if (write) {
				w[0] = data_word(o.seed, i);
				w[1] = p;
			}
		}
		errors += perr;
		printf("pass %" PRIu64 " pages %" PRIu64 " majflt %ld pswpin %" PRIu64
		       " pswpout %" PRIu64 " verify_errors %" PRIu64 " secs %.3f\n",
		       p, npages, majflt() - mf0, vmstat("pswpin") - in0,
		       vmstat("pswpout") - out0, perr, now() - t0);
	}
	printf("verify_errors %" PRIu64 "\n", errors);
	munmap(m, bytes);
	return errors ? 1 : 0;
}

/* === cachesize === */

/*
 * Stream [OFFSET, OFFSET + BYTES) with readahead and sample the file LRU
 * (Active(file) + Inactive(file)) every 4 MiB during the second half, when
 * reclaim keeps the page cache at its steady-state size.
 */
static int cmd_cachesize(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4 };
	char *pos[3];
	int npos;
	struct target t;
	uint64_t off, bytes, n = 0, sum = 0, mn = UINT64_MAX, mx = 0;
	const uint64_t chunk = 1 << 20;

	parse_args(argc, argv, &o, pos, &npos, 3);
	need_args(npos, 3);
	off = parse_size(pos[1]);
	bytes = parse_size(pos[2]) & ~(chunk - 1);
	target_open(&t, pos[0], chunk);
	check_range(&t, off, bytes, "cachesize");
	set_advice(t.fd, POSIX_FADV_SEQUENTIAL);

	print_common("cachesize", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\n", off, bytes);
	for (uint64_t so = 0; so < bytes; so += chunk) {
		read_at(&t, off + so, chunk);
		if (so >= bytes / 2 && (so / chunk) % 4 == 3) {
			uint64_t lru = meminfo_kb("Active(file)") + meminfo_kb("Inactive(file)");

			sum += lru;
			n++;
			mn = lru < mn ? lru : mn;
			mx = lru > mx ? lru : mx;
		}
	}
	if (!n)
		die("stream too short to sample");
	printf("samples %" PRIu64 "\n", n);
	printf("file_lru_kb_min %" PRIu64 "\nfile_lru_kb_avg %" PRIu64 "\nfile_lru_kb_max %"
	       PRIu64 "\n", mn, sum / n, mx);
	printf("memtotal_kb %" PRIu64 "\nmemfree_kb %" PRIu64 "\n", meminfo_kb("MemTotal"),
	       meminfo_kb("MemFree"));
	return 0;
}

/* === gen / verify === */

static int cmd_gen(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4 };
	char *pos[3];
	int npos, fd;
	uint64_t bytes, seed;
	unsigned char *buf;
	double t0 = now();

	parse_args(argc, argv, &o, pos, &npos, 3);
	need_args(npos, 3);
	bytes = parse_size(pos[1]);
	seed = parse_u64(pos[2]);
	if (bytes % 8)
		die("BYTES must be a multiple of 8");
	buf = malloc(GEN_BUF);
	if (!buf)
		die("out of memory");
	fd = open(pos[0], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", pos[0], strerror(errno));
	for (uint64_t off = 0; off < bytes; off += GEN_BUF) {
		size_t n = bytes - off < GEN_BUF ? bytes - off : GEN_BUF, done = 0;

		fill_data(seed, off, buf, n);
		while (done < n) {
			ssize_t w = write(fd, buf + done, n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				die("write %s: %s", pos[0], w < 0 ? strerror(errno) : "short");
			done += w;
		}
	}
	if (fsync(fd) || close(fd))
		die("close %s: %s", pos[0], strerror(errno));
	printf("workload gen\nfile %s\nbytes %" PRIu64 "\nseed %" PRIu64 "\nsecs %.3f\n",
	       pos[0], bytes, seed, now() - t0);
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	struct opts o = { .readahead = 1, .seed = 1, .phases = 4 };
	char *pos[4];
	int npos;
	struct target t;
	uint64_t off, bytes;
	const uint64_t chunk = 1 << 20;

	parse_args(argc, argv, &o, pos, &npos, 4);
	need_args(npos, 4);
	off = parse_size(pos[1]);
	bytes = parse_size(pos[2]);
	target_open(&t, pos[0], chunk);
	check_range(&t, off, bytes, "verify");
	target_verify(&t, parse_u64(pos[3]));
	set_advice(t.fd, POSIX_FADV_SEQUENTIAL);
	for (uint64_t so = 0; so < bytes; so += chunk)
		read_at(&t, off + so, bytes - so < chunk ? bytes - so : chunk);
	print_common("verify", &t);
	printf("offset %" PRIu64 "\nbytes %" PRIu64 "\n", off, bytes);
	print_verify(&t);
	return t.verify_errors ? 1 : 0;
}

/* === main === */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "loop", cmd_loop },
	{ "hotstream", cmd_hotstream },
	{ "zipf", cmd_zipf },
	{ "twopools", cmd_twopools },
	{ "phase", cmd_phase },
	{ "moving", cmd_moving },
	{ "zigzag", cmd_zigzag },
	{ "anon", cmd_anon },
	{ "cachesize", cmd_cachesize },
	{ "pread", cmd_pread },
	{ "gen", cmd_gen },
	{ "verify", cmd_verify },
};

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* "cpwork loop ..." or a symlink named after the subcommand */
	if (strcmp(base, prog) && strncmp(base, "cpwork", 6)) {
		argv[0] = (char *)base;
	} else {
		if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
			usage();
		argc--;
		argv++;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[0], cmds[i].name)) {
			subcmd = cmds[i].name;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "%s: unknown subcommand '%s'\n", prog, argv[0]);
	usage();
}
