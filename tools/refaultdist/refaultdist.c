// SPDX-License-Identifier: GPL-2.0
/*
 * clockpro-refaultdist - refault distances of page-cache and swap-cache
 *			  pages, traced with BPF
 *
 * An independent, module-free cross-check of the clockpro module's
 * observe path: kprobes on workingset_eviction(), workingset_refault()
 * and folio_add_lru() pair every reclaim eviction with the insertion that
 * brings the same page back, and report the distance between them in
 * evicted pages, as log2 and linear histograms.
 *
 * USAGE: clockpro-refaultdist [-h] [-T] [-j] [-v] [-n ENTRIES] [-w WIDTH]
 *			       [-b BUCKETS] [-c CGROUP] [interval] [count]
 *
 * The command line and flow follow biolatency(8) from BCC libbpf-tools.
 *
 * Copyright 2026 The clockpro authors.
 *
 * 03-Dec-2026   Created this.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "refaultdist.h"
#include "refaultdist.skel.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define DEFAULT_ENTRIES		(1U << 20)
#define DEFAULT_BUCKETS		32

static struct env {
	time_t interval;
	int times;
	bool timestamp;
	bool json;
	bool verbose;
	const char *cgroup;
	__u32 entries;
	__u64 width;
	__u32 buckets;
} env = {
	.interval = 99999999,
	.times = 99999999,
	.entries = DEFAULT_ENTRIES,
};

static volatile sig_atomic_t exiting;

const char *argp_program_version = "clockpro-refaultdist 0.1";
const char *argp_program_bug_address = "the clockpro issue tracker";
const char argp_program_doc[] =
"Trace page refault distances: evicted pages between a page's eviction and\n"
"its return to the page cache or swap cache.\n"
"\n"
"USAGE: clockpro-refaultdist [-h] [-T] [-j] [-v] [-n ENTRIES] [-w WIDTH]\n"
"                            [-b BUCKETS] [-c CGROUP] [interval] [count]\n"
"\n"
"Counts are pages (a large folio counts all its pages).  A refault is an\n"
"insertion whose page this tool saw evicted; New and Beyond are insertions\n"
"it did not find, without or with a kernel shadow entry.\n"
"\n"
"EXAMPLES:\n"
"    clockpro-refaultdist              # summarize until Ctrl-C\n"
"    clockpro-refaultdist 1 10         # print 1 second summaries, 10 times\n"
"    clockpro-refaultdist -T 5         # 5 second summaries with timestamps\n"
"    clockpro-refaultdist -w 4096 -b 16  # also a 16-row linear table, 4096 pages a row\n"
"    clockpro-refaultdist -j 1         # one JSON object per second\n"
"    clockpro-refaultdist -n 131072    # remember at most 131072 evicted pages\n"
"    clockpro-refaultdist -c /sys/fs/cgroup/work  # pages charged to that cgroup\n";

static const struct argp_option opts[] = {
	{ "timestamp", 'T', NULL, 0, "Include a timestamp on each output", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval", 0 },
	{ "entries", 'n', "ENTRIES", 0,
	  "Evicted pages remembered (LRU hash size, default 1048576)", 0 },
	{ "width", 'w', "WIDTH", 0,
	  "Linear histogram: row width in pages", 0 },
	{ "buckets", 'b', "BUCKETS", 0,
	  "Linear histogram: rows, the last one open-ended (default 32; alone: width = ENTRIES/BUCKETS)", 0 },
	{ "cgroup", 'c', "CGROUP", 0,
	  "Only pages charged to this cgroup v2 (or a descendant)", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static unsigned long long parse_num(const char *arg, const char *what,
				    unsigned long long max,
				    struct argp_state *state)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || !v || v > max) {
		fprintf(stderr, "invalid %s: %s (1..%llu)\n", what, arg, max);
		argp_usage(state);
	}
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static int pos_args;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'T':
		env.timestamp = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'n':
		env.entries = parse_num(arg, "entries", 1ULL << 28, state);
		break;
	case 'w':
		env.width = parse_num(arg, "width", ULLONG_MAX, state);
		break;
	case 'b':
		env.buckets = parse_num(arg, "buckets", MAX_LINEAR, state);
		break;
	case 'c':
		env.cgroup = arg;
		break;
	case ARGP_KEY_ARG:
		if (pos_args == 0)
			env.interval = parse_num(arg, "interval", INT_MAX,
						 state);
		else if (pos_args == 1)
			env.times = parse_num(arg, "count", INT_MAX, state);
		else {
			fprintf(stderr, "unrecognized positional argument: %s\n",
				arg);
			argp_usage(state);
		}
		pos_args++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format,
			   va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void sig_handler(int sig)
{
	exiting = 1;
}

/* === Probe targets === */

static const char *const targets[] = {
	"workingset_eviction",
	"workingset_refault",
	"folio_add_lru",
};
#define NR_TARGETS	(sizeof(targets) / sizeof(targets[0]))

/*
 * Are the functions we probe in this kernel?  A missing one (renamed,
 * inlined) would leave its counters at zero forever; refuse to run.
 */
static int check_targets(void)
{
	bool found[NR_TARGETS] = {};
	char line[512], name[256];
	unsigned int i, missing = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f) {
		fprintf(stderr, "cannot open /proc/kallsyms: %s\n",
			strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char type;

		if (sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type != 'T' && type != 't')
			continue;
		for (i = 0; i < NR_TARGETS; i++)
			if (!strcmp(name, targets[i]))
				found[i] = true;
	}
	fclose(f);
	for (i = 0; i < NR_TARGETS; i++) {
		if (found[i])
			continue;
		fprintf(stderr, "kernel function %s() not found in /proc/kallsyms: this kernel is not supported\n",
			targets[i]);
		missing++;
	}
	return missing ? -ENOENT : 0;
}

static int attach_probes(struct refaultdist_bpf *obj)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} p[NR_TARGETS] = {
		{ obj->progs.rd_eviction, &obj->links.rd_eviction },
		{ obj->progs.rd_refault, &obj->links.rd_refault },
		{ obj->progs.rd_add_lru, &obj->links.rd_add_lru },
	};
	unsigned int i;

	for (i = 0; i < NR_TARGETS; i++) {
		*p[i].link = bpf_program__attach_kprobe(p[i].prog, false,
							targets[i]);
		if (!*p[i].link) {
			int err = -errno;

			fprintf(stderr, "failed to attach kprobe to %s(): %s\n",
				targets[i], strerror(-err));
			if (err == -ENOENT &&
			    access("/sys/bus/event_source/devices/kprobe/type", F_OK))
				fprintf(stderr, "no kprobe PMU in /sys/bus/event_source/devices: is sysfs mounted, CONFIG_KPROBE_EVENTS set?\n");
			return err;
		}
		if (env.verbose)
			fprintf(stderr, "attached kprobe %s()\n", targets[i]);
	}
	return 0;
}

/* === cgroup filter === */

static int cgroup_id(const char *path, __u64 *id)
{
	char file[PATH_MAX];
	struct statfs sfs;
	struct stat st;

	if (statfs(path, &sfs) || stat(path, &st)) {
		fprintf(stderr, "cgroup %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cgroup %s: not a cgroup v2 directory\n", path);
		return -EINVAL;
	}
	/*
	 * Pages are charged to the nearest cgroup with the memory controller:
	 * a cgroup without one never matches.  The root has no
	 * memory.current but always owns a memcg.
	 */
	snprintf(file, sizeof(file), "%s/memory.current", path);
	if (st.st_ino != 1 && access(file, F_OK)) {
		fprintf(stderr, "cgroup %s: memory controller not enabled (no memory.current): its pages are charged to an ancestor\n",
			path);
		return -EINVAL;
	}
	/* On 64-bit, a cgroup2 inode number is its kernfs node id. */
	*id = st.st_ino;
	return 0;
}

/* === Output === */

struct snapshot {
	__u64 counters[RD_NR_COUNTERS];
	__u64 log2[MAX_SLOTS];
	__u64 lin[MAX_LINEAR];
	__u64 clock;
};

static void snapshot_take(const struct refaultdist_bpf *obj,
			  struct snapshot *s)
{
	const volatile __u64 *c = obj->bss->counters;
	unsigned int i;

	for (i = 0; i < RD_NR_COUNTERS; i++)
		s->counters[i] = c[i];
	for (i = 0; i < MAX_SLOTS; i++)
		s->log2[i] = obj->bss->hist_log2[i];
	for (i = 0; i < env.buckets; i++)
		s->lin[i] = obj->bss->hist_lin[i];
	s->clock = obj->bss->evict_clock;
}

static void snapshot_delta(struct snapshot *d, const struct snapshot *cur,
			   const struct snapshot *prev)
{
	unsigned int i;

	for (i = 0; i < RD_NR_COUNTERS; i++)
		d->counters[i] = cur->counters[i] - prev->counters[i];
	for (i = 0; i < MAX_SLOTS; i++)
		d->log2[i] = cur->log2[i] - prev->log2[i];
	for (i = 0; i < env.buckets; i++)
		d->lin[i] = cur->lin[i] - prev->lin[i];
	d->clock = cur->clock;
}

static void print_stars(__u64 val, __u64 val_max, int width)
{
	int num_stars, num_spaces, i;
	bool need_plus;

	num_stars = val_max ? (int)(val * width / val_max) : 0;
	if (num_stars > width)
		num_stars = width;
	num_spaces = width - num_stars;
	need_plus = val > val_max;
	for (i = 0; i < num_stars; i++)
		putchar('*');
	for (i = 0; i < num_spaces; i++)
		putchar(' ');
	if (need_plus)
		putchar('+');
}

/* trace_helpers.c print_log2_hist(), with 64-bit counts. */
static void print_log2_hist(const __u64 *vals, int vals_size,
			    const char *val_type)
{
	int stars_max = 40, idx_max = -1, stars, width, i;
	__u64 val, val_max = 0;
	unsigned long long low, high;

	for (i = 0; i < vals_size; i++) {
		val = vals[i];
		if (val > 0)
			idx_max = i;
		if (val > val_max)
			val_max = val;
	}
	if (idx_max < 0)
		return;

	printf("%*s%-*s : count    distribution\n", idx_max <= 32 ? 5 : 15, "",
	       idx_max <= 32 ? 19 : 29, val_type);
	stars = idx_max <= 32 ? stars_max : stars_max / 2;
	for (i = 0; i <= idx_max; i++) {
		low = (1ULL << (i + 1)) >> 1;
		high = (1ULL << (i + 1)) - 1;
		if (low == high)
			low -= 1;
		val = vals[i];
		width = idx_max <= 32 ? 10 : 20;
		printf("%*llu -> %-*llu : %-8llu |", width, low, width, high,
		       (unsigned long long)val);
		print_stars(val, val_max, stars);
		printf("|\n");
	}
}

/* The module's /proc/refaults-style table (debugfs clockpro/refaults). */
static void print_linear(const struct snapshot *d)
{
	unsigned int i;

	printf("     Refault distance          Hits\n");
	for (i = 0; i < env.buckets; i++) {
		unsigned long long lo = (unsigned long long)i * env.width;

		if (i == env.buckets - 1)
			printf("%9llu -       max     %9llu\n", lo,
			       (unsigned long long)d->lin[i]);
		else
			printf("%9llu - %9llu     %9llu\n", lo, lo + env.width,
			       (unsigned long long)d->lin[i]);
	}
	printf("      New               %9llu\n",
	       (unsigned long long)d->counters[RD_NEW]);
	printf("   Beyond               %9llu\n",
	       (unsigned long long)d->counters[RD_BEYOND]);
}

#define C(d, x)	((unsigned long long)(d)->counters[x])

static void print_text(const struct snapshot *d, const char *ts)
{
	if (env.timestamp)
		printf("%-8s\n", ts);
	printf("evicted %llu (swap %llu)  inserted %llu  refaults %llu (swap %llu)  new %llu  beyond %llu  [kernel shadow refaults %llu]",
	       C(d, RD_EVICTIONS), C(d, RD_EVICT_SWAP), C(d, RD_INSERTIONS),
	       C(d, RD_REFAULTS), C(d, RD_REFAULT_SWAP), C(d, RD_NEW),
	       C(d, RD_BEYOND), C(d, RD_SHADOW));
	if (d->counters[RD_UPDATE_ERR])
		printf("  TABLE UPDATE ERRORS %llu", C(d, RD_UPDATE_ERR));
	printf("\n\n");
	print_log2_hist(d->log2, MAX_SLOTS, "distance (pages)");
	if (env.width) {
		printf("\n");
		print_linear(d);
	}
	printf("\n");
}

static void print_json(const struct snapshot *d, const char *ts,
		       double elapsed)
{
	int i, idx_max = -1;
	const char *sep = "";

	printf("{\"time\":\"%s\",\"interval_s\":%.3f,\"unit\":\"pages\","
	       "\"evictions\":%llu,\"evictions_swap\":%llu,"
	       "\"evictions_large\":%llu,\"insertions\":%llu,"
	       "\"refaults\":%llu,\"refaults_swap\":%llu,\"new\":%llu,"
	       "\"beyond\":%llu,\"kernel_shadow_refaults\":%llu,"
	       "\"table_update_errors\":%llu,\"table_entries\":%u,"
	       "\"eviction_clock\":%llu,\"log2\":[",
	       ts, elapsed, C(d, RD_EVICTIONS), C(d, RD_EVICT_SWAP),
	       C(d, RD_LARGE_EVICT), C(d, RD_INSERTIONS), C(d, RD_REFAULTS),
	       C(d, RD_REFAULT_SWAP), C(d, RD_NEW), C(d, RD_BEYOND),
	       C(d, RD_SHADOW), C(d, RD_UPDATE_ERR), env.entries,
	       (unsigned long long)d->clock);
	for (i = 0; i < MAX_SLOTS; i++)
		if (d->log2[i])
			idx_max = i;
	for (i = 0; i <= idx_max; i++) {
		unsigned long long lo = (1ULL << (i + 1)) >> 1;
		unsigned long long hi = (1ULL << (i + 1)) - 1;

		if (lo == hi)
			lo -= 1;
		printf("%s{\"lo\":%llu,\"hi\":%llu,\"count\":%llu}", sep, lo,
		       hi, (unsigned long long)d->log2[i]);
		sep = ",";
	}
	printf("]");
	if (env.width) {
		printf(",\"linear\":{\"width\":%llu,\"rows\":[",
		       (unsigned long long)env.width);
		for (i = 0; i < (int)env.buckets; i++) {
			unsigned long long lo = (unsigned long long)i * env.width;

			printf("%s{\"lo\":%llu,", i ? "," : "", lo);
			if (i == (int)env.buckets - 1)
				printf("\"hi\":null,");
			else
				printf("\"hi\":%llu,", lo + env.width);
			printf("\"count\":%llu}", (unsigned long long)d->lin[i]);
		}
		printf("]}");
	}
	printf("}\n");
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct snapshot *prev = NULL, *cur = NULL, *delta = NULL;
	struct refaultdist_bpf *obj = NULL;
	struct utsname uts;
	__u64 cgid = 0;
	double t_prev;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	if (env.buckets && !env.width)
		env.width = (env.entries + env.buckets - 1) / env.buckets;
	if (env.width && !env.buckets)
		env.buckets = DEFAULT_BUCKETS;

	libbpf_set_print(libbpf_print_fn);

	if (env.verbose && !uname(&uts))
		fprintf(stderr, "kernel %s %s; hooks: workingset_eviction, workingset_refault, folio_add_lru\n",
			uts.release, uts.version);
	if (env.verbose)	/* measured: ~100 bytes an entry, preallocated */
		fprintf(stderr, "eviction table: %u entries, about %u MiB of kernel memory\n",
			env.entries, (unsigned int)((env.entries * 100ULL) >> 20));

	err = check_targets();
	if (err)
		goto cleanup;
	if (env.cgroup) {
		err = cgroup_id(env.cgroup, &cgid);
		if (err)
			goto cleanup;
	}

	prev = calloc(1, sizeof(*prev));
	cur = calloc(1, sizeof(*cur));
	delta = calloc(1, sizeof(*delta));
	if (!prev || !cur || !delta) {
		fprintf(stderr, "out of memory\n");
		err = -ENOMEM;
		goto cleanup;
	}

	/* Open BPF application */
	obj = refaultdist_bpf__open();
	if (!obj) {
		err = -errno;
		fprintf(stderr, "failed to open BPF object: %s\n",
			strerror(-err));
		goto cleanup;
	}

	/* Parameterize BPF code */
	obj->rodata->filter_cg = env.cgroup != NULL;
	obj->rodata->targ_cgid = cgid;
	obj->rodata->lin_width = env.width;
	obj->rodata->lin_buckets = env.buckets;
	err = bpf_map__set_max_entries(obj->maps.evicted, env.entries);
	if (err) {
		fprintf(stderr, "failed to size the eviction table: %s\n",
			strerror(-err));
		goto cleanup;
	}

	/* Load & verify BPF programs (CO-RE relocations happen here) */
	err = refaultdist_bpf__load(obj);
	if (err) {
		fprintf(stderr, "failed to load BPF object: %s%s\n",
			strerror(-err),
			env.verbose ? "" : " (-v shows the libbpf log)");
		goto cleanup;
	}
	if (!obj->bss) {
		fprintf(stderr, "kernel cannot mmap BPF global data (needs 5.5+)\n");
		err = -EOPNOTSUPP;
		goto cleanup;
	}

	/* Attach kprobes */
	err = attach_probes(obj);
	if (err)
		goto cleanup;

	/* Cleaner handling of Ctrl-C */
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);

	/* With --json, stdout carries nothing but the JSON objects. */
	fprintf(env.json ? stderr : stdout,
		"Tracing page refault distances%s%s... Hit Ctrl-C to end.\n",
		env.cgroup ? " in cgroup " : "", env.cgroup ? env.cgroup : "");
	fflush(NULL);

	snapshot_take(obj, prev);
	t_prev = now_s();
	while (1) {
		char ts[32];
		time_t t;
		double t_now;

		sleep(env.interval);
		snapshot_take(obj, cur);
		t_now = now_s();
		snapshot_delta(delta, cur, prev);

		t = time(NULL);
		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
		if (env.json)
			print_json(delta, ts, t_now - t_prev);
		else
			print_text(delta, ts);
		fflush(stdout);

		*prev = *cur;
		t_prev = t_now;
		if (exiting || --env.times == 0)
			break;
	}

	/* Never let silent zeros pass for a measurement. */
	snapshot_take(obj, cur);
	if (!cur->counters[RD_EVICTIONS] && !cur->counters[RD_INSERTIONS])
		fprintf(stderr, "note: no eviction and no insertion seen: no reclaim happened%s while tracing\n",
			env.cgroup ? " in that cgroup" : "");
	else if (cur->counters[RD_EVICTIONS] && !cur->counters[RD_INSERTIONS])
		fprintf(stderr, "warning: evictions but no insertion seen: is folio_add_lru() still the page-cache insertion path of this kernel?\n");
	if (cur->counters[RD_UPDATE_ERR])
		fprintf(stderr, "warning: %llu eviction table updates failed; refaults are undercounted\n",
			C(cur, RD_UPDATE_ERR));

cleanup:
	refaultdist_bpf__destroy(obj);
	free(prev);
	free(cur);
	free(delta);
	return err != 0;
}
