// SPDX-License-Identifier: GPL-2.0
/*
 * clockpro: CLOCK-Pro page replacement for stock kernels, as a module
 *
 *		What it does
 *
 * Without patching the kernel, the module watches every page the kernel's
 * reclaim evicts and every page it inserts into the page cache or swap
 * cache, through ftrace callbacks and kprobes (hooks.c).  Evicted pages
 * are remembered in a nonresident table, 4 bytes each (nonres.c).  When a
 * page comes back, the table says how many evictions ago it left: its
 * refault distance.  The distances are published as the
 * /proc/refaults-style histogram of the 2005 nonresident patches, with
 * pages never seen (New) and pages that fell out of the table (Beyond)
 * told apart.
 *
 * In observe mode, that is all: nothing the kernel decides changes.  In
 * enforce mode, CLOCK-Pro's hot/cold balance (policy.c) decides which
 * refaulting pages go straight to the active list, and holds the active
 * list at an adaptive target by vetoing or sizing the kernel's
 * deactivation, per lruvec.  Enforce needs the classic two-list LRU; the
 * multi-gen LRU has no active list to hold, so enforce is refused there.
 *
 *		Why the 2005 attempt saw nothing
 *
 * The hook sat on add_to_page_cache_lru(), which readahead did not use at
 * the time, so a sequential scan never consulted the table; distances were
 * 15 coarse steps; New and Beyond shared one row.  Here the insertion hook
 * is folio_add_lru(), which every new page-cache folio passes; distances
 * come from a timestamp in each cookie; misses are split using the
 * kernel's own shadow entries.
 *
 *		Interfaces
 *
 * /sys/kernel/debug/clockpro/: stats, refaults, lruvecs (read), mode,
 * reset and the tunables (write).  Every tunable is also a module
 * parameter, validated the same way, for kernels where lockdown forbids
 * debugfs writes.  Bad values are refused with -EINVAL and change nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "clockpro.h"
#include "clockpro/compat.h"

/* === Data === */

struct cp_global cp = {
	.mode = CP_MODE_OBSERVE,
	.hist_rows = 32,
	.hist_geom = CP_HIST_GEOM(1, 32),	/* valid before any refit */
	.hist_epoch = ATOMIC64_INIT(1),
	.params = CP_POLICY_DEFAULTS,
	.knob_lock = __MUTEX_INITIALIZER(cp.knob_lock),
};

static struct dentry *cp_debugfs;
/*
 * Knob writes act at once: set under knob_lock once everything they touch
 * exists, cleared first thing on exit (module parameters stay writable
 * while the exit function runs, and a write takes no module reference).
 */
static bool cp_live;

/* Table size: load time only. */
static unsigned long table_pages;
module_param(table_pages, ulong, 0444);
MODULE_PARM_DESC(table_pages,
		 "Pages to remember; 0 sizes the table from RAM and table_pct [DEFAULT: 0]");

static unsigned int table_pct = 100;
module_param(table_pct, uint, 0444);
MODULE_PARM_DESC(table_pct,
		 "Table size in percent of RAM pages, 1..1000 [DEFAULT: 100]");

/* === Internals === */

/*
 * cp_stat_sum - sum a per-CPU counter
 * @item: the counter
 *
 * Return: its total over all possible CPUs.
 */
static u64 cp_stat_sum(enum cp_stat_item item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(cp.stats, cpu)->v[item];
	return sum;
}

/*
 * cp_stats_reset - zero every event counter
 *
 * Counts racing with the reset on other CPUs may survive it.
 */
static void cp_stats_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(cp.stats, cpu), 0, sizeof(*cp.stats));
}

/*
 * cp_hist_reset - zero the refault histograms and the verify comparison
 *
 * All count the same refaults, so they start again together; the
 * recorded eviction times stay.
 */
static void cp_hist_reset(void)
{
	struct cp_verify *v;
	int cpu, i;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(cp.hist, cpu), 0, sizeof(*cp.hist));
	/* the lruvecs' histograms restart at their next refault or read */
	atomic64_inc(&cp.hist_epoch);
	rcu_read_lock();
	v = rcu_dereference(cp.verify);
	if (v) {
		for (i = 0; i < CP_NR_VERIFY; i++)
			atomic64_set(&v->counts[i], 0);
		for (i = 0; i < CP_HIST_MAX; i++)
			atomic64_set(&v->rows[i], 0);
	}
	rcu_read_unlock();
}

#define CP_LRU_GEN_PATH "/sys/kernel/mm/lru_gen/enabled"

/*
 * cp_lru_gen_read - read the multi-gen LRU's switch
 * @caps: its value, bit 0 the LRU itself; 0 where the kernel has none
 *
 * Reads /sys/kernel/mm/lru_gen/enabled, as lru_gen_enabled() is not
 * available to modules.  Process context only.
 *
 * Return: 0, or a negative errno if it cannot be read.
 */
static int cp_lru_gen_read(unsigned long *caps)
{
	char buf[16] = "";
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	*caps = 0;
	f = filp_open(CP_LRU_GEN_PATH, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ? 0 : PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return n ? n : -EIO;
	buf[n] = '\0';
	if (kstrtoul(strim(buf), 0, caps))
		return -EIO;
	return 0;
}

/* Set the switch: lru_gen_change_state() moves every folio over. */
static int cp_lru_gen_write(unsigned long caps)
{
	char buf[24];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int len;

	len = scnprintf(buf, sizeof(buf), "0x%lx\n", caps);
	f = filp_open(CP_LRU_GEN_PATH, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

/*
 * classic_lru: on a kernel running the multi-gen LRU, enforce switches it
 * off for as long as it enforces, and puts back the value it found.
 * MGLRU has no active list, and no lever for a hot target on a stock
 * kernel (docs/mglru.md); the classic LRU is built in the same kernels.
 * cp_lru_gen_saved, under knob_lock, is the value to put back: nonzero
 * while the module holds the switch off.
 */
static bool classic_lru;
module_param(classic_lru, bool, 0644);
MODULE_PARM_DESC(classic_lru,
		 "Under the multi-gen LRU, enforce switches it off while it enforces and restores it after [DEFAULT: N]");
static unsigned long cp_lru_gen_saved;

/*
 * Put the multi-gen LRU back as enforce found it, knob_lock held.  If
 * someone switched it on meanwhile, it stays as they left it.
 */
static void cp_lru_gen_restore(const char *why)
{
	unsigned long caps;
	int ret;

	lockdep_assert_held(&cp.knob_lock);
	if (!cp_lru_gen_saved)
		return;
	ret = cp_lru_gen_read(&caps);
	if (!ret && (caps & 1)) {
		pr_info("classic_lru: the multi-gen LRU was switched on meanwhile (0x%04lx), left so\n",
			caps);
	} else {
		ret = cp_lru_gen_write(cp_lru_gen_saved);
		if (ret)
			pr_err("classic_lru: cannot restore lru_gen/enabled to 0x%04lx (error %d)\n",
			       cp_lru_gen_saved, ret);
		else
			pr_info("classic_lru: the multi-gen LRU is back (lru_gen/enabled 0x%04lx): %s\n",
				cp_lru_gen_saved, why);
	}
	cp_lru_gen_saved = 0;
}

/*
 * The multi-gen LRU off for enforce, knob_lock held.  Once the switch is
 * written, @caps is what to put back; a switch that does not read back off
 * is put back at once.
 */
static int cp_lru_gen_off(unsigned long caps)
{
	unsigned long now;
	int ret;

	lockdep_assert_held(&cp.knob_lock);
	ret = cp_lru_gen_write(0);
	if (ret)
		goto err;
	cp_lru_gen_saved = caps;
	ret = cp_lru_gen_read(&now);
	if (!ret && (now & 1))
		ret = -EBUSY;
	if (ret) {
		cp_lru_gen_restore("enforce refused");
		goto err;
	}
	pr_info("classic_lru: the multi-gen LRU is off while enforcing (lru_gen/enabled was 0x%04lx)\n",
		caps);
	return 0;
err:
	pr_err("classic_lru: cannot switch the multi-gen LRU off (error %d)\n", ret);
	return ret;
}

/*
 * The switch moves every folio between the two LRUs' lists, and reclaim
 * running meanwhile finds little to take: switching back and forth under
 * memory pressure ended in OOM kills (the stress test, flipping the mode
 * twice a second on four vCPUs).  So when enforce stops, MGLRU comes back
 * only after enforce has stayed off for CP_LRU_GEN_HOLD; enforce started
 * again meanwhile finds it still off.  A failed start, MGLRU switched on
 * by someone else and the module's unload act at once.
 */
#define CP_LRU_GEN_HOLD	(30 * HZ)

static void cp_lru_gen_restore_fn(struct work_struct *work)
{
	mutex_lock(&cp.knob_lock);
	if (cp_live && READ_ONCE(cp.mode) != CP_MODE_ENFORCE)
		cp_lru_gen_restore("enforce stopped");
	mutex_unlock(&cp.knob_lock);
}

static DECLARE_DELAYED_WORK(cp_lru_gen_restore_work, cp_lru_gen_restore_fn);

/*
 * Publish the histogram geometry of the knobs, knob_lock held: a width of
 * 0 spreads the rows over the table's whole reach, and stays automatic.
 * The result is never 0 wide (cp_hist_row() divides by it).
 */
static void cp_hist_refit(void)
{
	u32 rows = clamp_t(u32, cp.hist_rows, 1, CP_HIST_MAX);
	u64 width = cp.hist_width;

	if (!width)
		width = DIV_ROUND_UP(cp.table.max_age, rows);
	width = clamp_t(u64, width, 1, U32_MAX);
	WRITE_ONCE(cp.hist_geom, CP_HIST_GEOM(width, rows));
}

/*
 * Refused writes: a clear line each, but a script writing garbage in a
 * loop must not flood the console (100 lines per 5 s, then a count).
 */
static DEFINE_RATELIMIT_STATE(cp_refusal_rs, 5 * HZ, 100);

#define cp_refuse(fmt, ...)						\
	do {								\
		if (__ratelimit(&cp_refusal_rs))			\
			pr_err(fmt, ##__VA_ARGS__);			\
	} while (0)

/* === Knobs === */

enum cp_knob_id {
	CP_KNOB_TARGET_MIN,
	CP_KNOB_TARGET_MAX,
	CP_KNOB_TARGET_INIT,
	CP_KNOB_FIXED,
	CP_KNOB_STEP,
	CP_KNOB_HYST,
	CP_KNOB_FLOOR_PCT,
	CP_KNOB_FLOOR_PAGES,
	CP_KNOB_HAND_BATCH,
	CP_KNOB_AGE,
	CP_KNOB_IDLE,
	CP_KNOB_HIST_WIDTH,
	CP_KNOB_HIST_ROWS,
	CP_KNOB_MEMCG_HIST,
	CP_NR_KNOBS,
};

struct cp_knob {
	const char *name;
	u32 *val;
	u32 min, max;
};

#define CP_PARAM_KNOB(id, field, lo, hi) \
	[id] = { .name = #field, .val = &cp.params.field, .min = lo, .max = hi }

static struct cp_knob cp_knobs[CP_NR_KNOBS] = {
	CP_PARAM_KNOB(CP_KNOB_TARGET_MIN, target_min_pct, 1, 98),
	CP_PARAM_KNOB(CP_KNOB_TARGET_MAX, target_max_pct, 1, 98),
	CP_PARAM_KNOB(CP_KNOB_TARGET_INIT, target_init_pct, 1, 98),
	CP_PARAM_KNOB(CP_KNOB_FIXED, fixed_pct, 0, 98),
	CP_PARAM_KNOB(CP_KNOB_STEP, step, 1, 65536),
	CP_PARAM_KNOB(CP_KNOB_HYST, hyst_pct, 0, 20),
	CP_PARAM_KNOB(CP_KNOB_FLOOR_PCT, floor_pct, 0, 50),
	CP_PARAM_KNOB(CP_KNOB_FLOOR_PAGES, floor_pages, 0, 1U << 30),
	CP_PARAM_KNOB(CP_KNOB_HAND_BATCH, hand_batch, 1, 4096),
	CP_PARAM_KNOB(CP_KNOB_AGE, age_pct, 0, 1000),
	CP_PARAM_KNOB(CP_KNOB_IDLE, idle_pct, 0, 100),
	[CP_KNOB_HIST_WIDTH] = { .name = "hist_width", .val = &cp.hist_width,
				 .min = 0, .max = U32_MAX },
	[CP_KNOB_HIST_ROWS] = { .name = "hist_rows", .val = &cp.hist_rows,
				.min = 1, .max = CP_HIST_MAX },
	[CP_KNOB_MEMCG_HIST] = { .name = "memcg_hist", .val = &cp.memcg_hist,
				 .min = 0, .max = 1 },
};

/*
 * Set one knob, all or nothing: the value must be in range and the whole
 * policy parameter set must stay valid.  Histogram geometry changes clear
 * the histogram, whose rows would otherwise mean something else.
 */
static int cp_knob_set(struct cp_knob *k, u64 v)
{
	struct cp_policy_params trial;
	int ret = 0;

	if (v < k->min || v > k->max) {
		cp_refuse("%s: %llu out of range %u..%u\n", k->name, v,
			  k->min, k->max);
		return -EINVAL;
	}
	mutex_lock(&cp.knob_lock);
	if (k->val == &cp.hist_width || k->val == &cp.hist_rows) {
		WRITE_ONCE(*k->val, v);
		if (cp_live) {
			u64 old = cp.hist_geom;

			cp_hist_refit();
			if (cp.hist_geom != old)
				cp_hist_reset();
		}
		goto out_unlock;
	}
	if (k->val == &cp.memcg_hist) {
		/*
		 * Observe advanced no lruvec clock while it was off: its
		 * slots start afresh, as enforce's do when it starts.  The
		 * histograms of all lruvecs restart (a new epoch).
		 */
		if (v && !cp.memcg_hist && cp_live) {
			if (READ_ONCE(cp.mode) != CP_MODE_ENFORCE)
				cp_slots_reset();
			atomic64_inc(&cp.hist_epoch);
		}
		WRITE_ONCE(cp.memcg_hist, v);
		goto out_unlock;
	}
	trial = cp.params;
	*(u32 *)((char *)&trial + ((char *)k->val - (char *)&cp.params)) = v;
	ret = cp_policy_validate(&trial);
	if (ret) {
		cp_refuse("%s=%llu rejected: inconsistent with the other policy parameters\n",
			  k->name, v);
		goto out_unlock;
	}
	WRITE_ONCE(*k->val, v);
out_unlock:
	mutex_unlock(&cp.knob_lock);
	return ret;
}

static int cp_knob_param_set(const char *val, const struct kernel_param *kp)
{
	u64 v;

	if (kstrtou64(val, 0, &v)) {
		cp_refuse("%s: '%.32s' is not a number\n",
			  ((struct cp_knob *)kp->arg)->name, val);
		return -EINVAL;
	}
	return cp_knob_set(kp->arg, v);
}

static int cp_knob_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*((struct cp_knob *)kp->arg)->val));
}

static const struct kernel_param_ops cp_knob_param_ops = {
	.set = cp_knob_param_set,
	.get = cp_knob_param_get,
};

module_param_cb(target_min_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_TARGET_MIN], 0644);
MODULE_PARM_DESC(target_min_pct, "Lower bound of the active target, % of file LRU [DEFAULT: 40]");
module_param_cb(target_max_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_TARGET_MAX], 0644);
MODULE_PARM_DESC(target_max_pct, "Upper bound of the active target, % of file LRU [DEFAULT: 95]");
module_param_cb(target_init_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_TARGET_INIT], 0644);
MODULE_PARM_DESC(target_init_pct, "Initial adaptive active target, % of file LRU [DEFAULT: 50]");
module_param_cb(fixed_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_FIXED], 0644);
MODULE_PARM_DESC(fixed_pct, "Fixed active target in %, 0 for adaptive [DEFAULT: 0]");
module_param_cb(step, &cp_knob_param_ops, &cp_knobs[CP_KNOB_STEP], 0644);
MODULE_PARM_DESC(step, "Pages the target moves per adaptation event [DEFAULT: 1]");
module_param_cb(hyst_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_HYST], 0644);
MODULE_PARM_DESC(hyst_pct, "Dead band around the target, % of file LRU [DEFAULT: 2]");
module_param_cb(floor_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_FLOOR_PCT], 0644);
MODULE_PARM_DESC(floor_pct, "Inactive list never held below this % of file LRU [DEFAULT: 3]");
module_param_cb(floor_pages, &cp_knob_param_ops, &cp_knobs[CP_KNOB_FLOOR_PAGES], 0644);
MODULE_PARM_DESC(floor_pages, "... nor below this many pages [DEFAULT: 256]");
module_param_cb(hand_batch, &cp_knob_param_ops, &cp_knobs[CP_KNOB_HAND_BATCH], 0644);
MODULE_PARM_DESC(hand_batch, "Active pages the hot hand scans per request [DEFAULT: 512]");
module_param_cb(age_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_AGE], 0644);
MODULE_PARM_DESC(age_pct, "Hot hand passes every active page once per this % of the LRU in evictions, clearing bits; 0 = off [DEFAULT: 100]");
module_param_cb(idle_pct, &cp_knob_param_ops, &cp_knobs[CP_KNOB_IDLE], 0644);
MODULE_PARM_DESC(idle_pct, "The hot set is idle after this % of the LRU is inserted without any reuse: new pages go hot, LRU order; 0 = never [DEFAULT: 2]");
module_param_cb(hist_width, &cp_knob_param_ops, &cp_knobs[CP_KNOB_HIST_WIDTH], 0644);
MODULE_PARM_DESC(hist_width, "Histogram row width, pages; 0: fit the table [DEFAULT: 0]");
module_param_cb(hist_rows, &cp_knob_param_ops, &cp_knobs[CP_KNOB_HIST_ROWS], 0644);
MODULE_PARM_DESC(hist_rows, "Refault histogram rows, 1..256 [DEFAULT: 32]");
module_param_cb(memcg_hist, &cp_knob_param_ops, &cp_knobs[CP_KNOB_MEMCG_HIST], 0644);
MODULE_PARM_DESC(memcg_hist, "Refault histograms per memcg (debugfs memcgs), 1: on; costs a lock per eviction and insertion [DEFAULT: 0]");

static const char * const cp_mode_names[] = {
	[CP_MODE_OBSERVE] = "observe",
	[CP_MODE_ENFORCE] = "enforce",
};

static int cp_mode_requested = CP_MODE_OBSERVE;
static const char cp_mglru_msg[] =
	"the multi-gen LRU is on (classic_lru=1: enforce switches it off while it runs)";

/*
 * May enforce start?  Not on a kernel that lacks one of its hook sites,
 * nor on one whose scan_control this build does not know: reclaim's
 * escape hatches would be invisible.  Not under MGLRU,
 * unless classic_lru lets enforce switch it off.  knob_lock held.
 *
 * Return: 0, or a negative errno for cp_enforce_refusal().
 */
static int cp_enforce_allowed(void)
{
	unsigned long caps;
	int ret;

	lockdep_assert_held(&cp.knob_lock);
	if (cp_hooks_enforce_missing())
		return -ENOENT;
	if (!cp_scan_control_known())
		return -ENODEV;
	ret = cp_lru_gen_read(&caps);
	if (ret || !(caps & 1))
		return ret;
	if (!READ_ONCE(classic_lru))
		return -EOPNOTSUPP;
	ret = cp_lru_gen_off(caps);
	return ret == -EBUSY ? -EOPNOTSUPP : ret;
}

/* One dmesg line: why @what (enforce, mode=enforce) is refused. */
static void cp_enforce_refuse(const char *what, int err)
{
	const char *release = init_utsname()->release;

	switch (err) {
	case -EOPNOTSUPP:
		cp_refuse("%s refused: %s\n", what, cp_mglru_msg);
		break;
	case -ENODEV:
		cp_refuse("%s refused: struct scan_control of %s unknown to this build\n",
			  what, release);
		break;
	case -ENOENT:
		cp_refuse("%s refused: no hook on %s in this kernel (%s)\n",
			  what, cp_hooks_enforce_missing(), release);
		break;
	default:
		cp_refuse("%s refused: cannot read or switch lru_gen/enabled (error %d)\n",
			  what, err);
	}
}

static int cp_mode_set(const char *buf)
{
	int mode = sysfs_match_string(cp_mode_names, buf);
	int ret = 0;

	if (mode < 0) {
		cp_refuse("mode: '%.32s' is neither observe nor enforce\n", buf);
		return -EINVAL;
	}
	mutex_lock(&cp.knob_lock);
	if (mode == CP_MODE_ENFORCE && cp_live) {
		ret = cp_enforce_allowed();
		if (ret) {
			cp_enforce_refuse("enforce", ret);
			goto out_unlock;
		}
		/* MGLRU held off after enforce stopped: it stays off */
		cancel_delayed_work(&cp_lru_gen_restore_work);
	}
	if (cp_live && mode == CP_MODE_ENFORCE &&
	    READ_ONCE(cp.mode) != CP_MODE_ENFORCE) {
		cp_slots_reset();
		ret = cp_hooks_arm(true);
		if (ret) {
			cp_refuse("enforce refused: its hooks cannot be armed (error %d)\n",
				  ret);
			cp_lru_gen_restore("enforce refused");
			goto out_unlock;
		}
	}
	cp_mode_requested = mode;
	if (cp_live) {
		if (mode != READ_ONCE(cp.mode)) {
			WRITE_ONCE(cp.mode, mode);
			pr_info("mode %s\n", cp_mode_names[mode]);
		}
		if (mode == CP_MODE_OBSERVE) {
			cp_hooks_arm(false);	/* a cached read costs nothing */
			if (cp_lru_gen_saved)
				mod_delayed_work(system_wq, &cp_lru_gen_restore_work,
						 CP_LRU_GEN_HOLD);
		}
	}
out_unlock:
	mutex_unlock(&cp.knob_lock);
	return ret;
}

/**
 * cp_hooks_follow_mode - arm the hooks of the current mode
 *
 * For a mode the module left by itself (MGLRU seen while enforcing).
 * Process context.
 */
void cp_hooks_follow_mode(void)
{
	mutex_lock(&cp.knob_lock);
	if (cp_live && READ_ONCE(cp.mode) != CP_MODE_ENFORCE) {
		cp_hooks_arm(false);
		cp_lru_gen_restore("enforce dropped");
	}
	mutex_unlock(&cp.knob_lock);
}

static int cp_mode_param_set(const char *val, const struct kernel_param *kp)
{
	return cp_mode_set(val);
}

static int cp_mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", cp_mode_names[READ_ONCE(cp.mode)]);
}

static const struct kernel_param_ops cp_mode_param_ops = {
	.set = cp_mode_param_set,
	.get = cp_mode_param_get,
};
module_param_cb(mode, &cp_mode_param_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "observe or enforce [DEFAULT: observe]");

/* === DebugFS Interface === */

static int cp_knob_get(void *data, u64 *val)
{
	*val = READ_ONCE(*((struct cp_knob *)data)->val);
	return 0;
}

static int cp_knob_dfs_set(void *data, u64 val)
{
	return cp_knob_set(data, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(cp_knob_fops, cp_knob_get, cp_knob_dfs_set, "%llu\n");

static const char * const cp_stat_names[CP_NR_STATS] = {
	[CP_STAT_EVICTIONS] = "evictions",
	[CP_STAT_EVICT_LARGE] = "evictions_large_folio",
	[CP_STAT_SWAP_EVICTIONS] = "evictions_swap",
	[CP_STAT_INSERTIONS] = "insertions",
	[CP_STAT_REFAULTS] = "refaults",
	[CP_STAT_SWAP_REFAULTS] = "refaults_swap",
	[CP_STAT_NEW] = "new",
	[CP_STAT_BEYOND] = "beyond",
	[CP_STAT_SHADOW] = "kernel_shadow_refaults",
	[CP_STAT_EXPIRED] = "table_expired",
	[CP_STAT_DISPLACED] = "table_displaced",
	[CP_STAT_RACED] = "table_raced",
	[CP_STAT_PROMOTED] = "promoted",
	[CP_STAT_KEPT_COLD] = "kept_cold",
	[CP_STAT_OVERRIDDEN] = "kernel_activations_undone",
	[CP_STAT_DEACT_SKIPPED] = "deactivate_held",
	[CP_STAT_DEACT_TRIMMED] = "deactivate_sized",
	[CP_STAT_DEACT_PAGES] = "deactivate_pages",
	[CP_STAT_COLD_HITS] = "cold_hits",
	[CP_STAT_DEMOTED_HITS] = "demoted_hits",
	[CP_STAT_HAND_ROTATED] = "hand_rotated",
	[CP_STAT_HAND_DEMOTED] = "hand_demoted",
	[CP_STAT_IDLE_HOT] = "idle_inserted_hot",
	[CP_STAT_NO_LRUVEC] = "lruvec_slots_full",
	[CP_STAT_MGLRU_SEEN] = "enforce_dropped_mglru",
	[CP_STAT_MGLRU_TAIL] = "mglru_tail_calls",
	[CP_STAT_ESCALATED] = "deactivate_escalated",
	[CP_STAT_ESC_FORCED] = "escalated_forced",
	[CP_STAT_ESC_PRIORITY] = "escalated_priority",
	[CP_STAT_ESC_ZONES] = "escalated_zones",
	[CP_STAT_SLOTS_FREED] = "lruvec_slots_freed",
	[CP_STAT_REMOTE_REFAULTS] = "remote_refaults",
	[CP_STAT_HAND_LOST] = "hand_call_lost",
};

struct cp_lruvec_sum {
	u64 lruvecs, active, inactive, grow, shrink, credits, pending;
	u64 grow_kept, grow_hot, grow_expired, promoted_credit, uncredited;
	u64 kept_far;
	u64 trim_credited;
	u64 aged, age_kept, idle_demoted, idle_reinstated;
	u64 idle_episodes, idle_past_old, restarts;
	u32 idle_shift;
	s64 target;
};

static void cp_sum_lruvec(void *arg, const struct cp_lruvec_slot *s)
{
	const struct cp_lru_state *st = &s->st;
	struct cp_lruvec_sum *sum = arg;

	sum->lruvecs++;
	sum->active += s->sz.active;
	sum->inactive += s->sz.inactive;
	sum->target += cp_slot_target(s);
	sum->grow += st->grow;
	sum->shrink += st->shrink;
	sum->grow_kept += st->grow_kept;
	sum->kept_far += st->kept_far;
	sum->grow_hot += st->grow_hot;
	sum->grow_expired += st->grow_expired;
	sum->promoted_credit += st->promoted_credit;
	sum->uncredited += st->uncredited;
	sum->credits += st->credits;
	sum->trim_credited += st->trim_credited;
	sum->pending += st->pending;
	sum->aged += st->aged;
	sum->age_kept += st->age_kept;
	sum->idle_demoted += st->idle_demoted;
	sum->idle_reinstated += st->idle_reinstated;
	sum->idle_episodes += st->idle_episodes;
	sum->idle_past_old += st->idle_past_old;
	sum->restarts += st->restarts;
	sum->idle_shift = max(sum->idle_shift, st->idle_shift);
}

/* Live entries of the table, a slice at a time: it may be gigabytes. */
static u64 cp_table_live(u64 now)
{
	const u64 chunk = 1 << 16;
	u64 n = 0, i;

	for (i = 0; i < cp.table.capacity; i += chunk) {
		n += cp_table_count_range(&cp.table, now, i, i + chunk);
		cond_resched();
	}
	return n;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct cp_lruvec_sum sum = { 0 };
	u64 now = cp_table_clock(&cp.table);
	const char *sym;
	unsigned int i, n;
	bool on;

	seq_printf(m, "mode %s\n", cp_mode_names[READ_ONCE(cp.mode)]);
	/* the multi-gen LRU's value to restore, 0 if not held off */
	seq_printf(m, "lru_gen_held_off 0x%04lx\n", READ_ONCE(cp_lru_gen_saved));
	for (i = 0; i < CP_NR_STATS; i++)
		seq_printf(m, "%s %llu\n", cp_stat_names[i], cp_stat_sum(i));
	seq_printf(m, "table_entries %llu\n", cp_table_live(now));
	seq_printf(m, "table_capacity %llu\n", cp.table.capacity);
	seq_printf(m, "table_bytes %zu\n", cp_table_bytes(cp.table.nbuckets));
	seq_printf(m, "table_buckets %u\n", cp.table.nbuckets);
	seq_printf(m, "table_max_age %llu\n", cp.table.max_age);
	seq_printf(m, "clock %llu\n", now);
	seq_printf(m, "clock_step %llu\n", 1ULL << cp.table.shift);
	/* refaults: the global clock; enforce: each lruvec's own */
	seq_puts(m, "distance_clock global\n");

	if (cp_lruvec_stats(cp_sum_lruvec, &sum))
		return -ENOMEM;
	seq_printf(m, "lruvecs %llu\n", sum.lruvecs);
	seq_printf(m, "active_target %lld\n", sum.target);
	seq_printf(m, "active_pages %llu\n", sum.active);
	seq_printf(m, "inactive_pages %llu\n", sum.inactive);
	seq_printf(m, "adapt_grow %llu\n", sum.grow);
	seq_printf(m, "adapt_shrink %llu\n", sum.shrink);
	seq_printf(m, "adapt_grow_kept_cold %llu\n", sum.grow_kept);
	seq_printf(m, "kept_cold_far %llu\n", sum.kept_far);
	seq_printf(m, "adapt_grow_hot_refault %llu\n", sum.grow_hot);
	seq_printf(m, "adapt_grow_expired %llu\n", sum.grow_expired);
	seq_printf(m, "promoted_on_credit %llu\n", sum.promoted_credit);
	seq_printf(m, "hand_demoted_uncredited %llu\n", sum.uncredited);
	seq_printf(m, "hand_credits %llu\n", sum.credits);
	seq_printf(m, "hand_trim_credited %llu\n", sum.trim_credited);
	seq_printf(m, "hand_pending %llu\n", sum.pending);
	seq_printf(m, "hand_aged %llu\n", sum.aged);
	seq_printf(m, "hand_age_kept %llu\n", sum.age_kept);
	seq_printf(m, "hand_idle_demoted %llu\n", sum.idle_demoted);
	seq_printf(m, "idle_reinstated %llu\n", sum.idle_reinstated);
	seq_printf(m, "idle_episodes %llu\n", sum.idle_episodes);
	seq_printf(m, "idle_demoted_past_old %llu\n", sum.idle_past_old);
	/* the largest: how far lost bets have widened an idle window */
	seq_printf(m, "idle_window_doublings %u\n", sum.idle_shift);
	seq_printf(m, "state_restarts %llu\n", sum.restarts);

	/* armed now; then those of the other mode, or missing */
	for (n = 0; n < 2; n++) {
		bool first = true;

		seq_puts(m, n ? "hooks_disarmed" : "hooks");
		for (i = 0; (sym = cp_hooks_describe(i, &on)); i++) {
			if (on == !!n)
				continue;
			seq_printf(m, "%c%s", first ? ' ' : ',', sym);
			first = false;
		}
		seq_putc(m, '\n');
	}
	cp_hooks_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void cp_show_lruvec(void *arg, const struct cp_lruvec_slot *s)
{
	const struct cp_lru_state *st = &s->st;
	struct seq_file *m = arg;

	seq_printf(m, "%5u %4u %9llu %9llu %9lld %9llu %9llu %9llu %9llu %9llu %9llu %9llu %9llu %9llu %4d %9llu %5u %llu %llu\n",
		   s->memcg_id, s->nid, s->sz.active, s->sz.inactive,
		   cp_slot_target(s), st->promotions, st->kept_cold, st->grow,
		   st->shrink, st->rotated, st->demoted, st->skips, st->trims,
		   st->quiet, st->idle_on, st->idle_old, st->idle_shift,
		   s->cgroup_ino, s->lc.now);
}

static int lruvecs_show(struct seq_file *m, void *v)
{
	/* sizes and target as of the lruvec's last decision */
	seq_puts(m, "memcg node    active  inactive    target  promoted kept_cold      grow    shrink   rotated   demoted      held     sized     quiet idle  idle_old shift cgroup_ino evictions\n");
	return cp_lruvec_stats(cp_show_lruvec, m);
}
DEFINE_SHOW_ATTRIBUTE(lruvecs);

/* One "lo - hi  count" line of a distance table; the last row is open. */
static void cp_show_row(struct seq_file *m, unsigned int i, u64 geom,
			u64 count)
{
	u32 width = CP_HIST_GEOM_WIDTH(geom), rows = CP_HIST_GEOM_ROWS(geom);
	u64 lo = (u64)i * width, hi = lo + width;

	if (i == rows - 1 && hi < cp.table.max_age)
		seq_printf(m, "%9llu -       max     %9llu\n", lo, count);
	else
		seq_printf(m, "%9llu - %9llu     %9llu\n", lo, hi, count);
}

static int refaults_show(struct seq_file *m, void *unused)
{
	u64 geom = READ_ONCE(cp.hist_geom);
	unsigned int i;
	u64 count;
	int cpu;

	/* distances on the global eviction clock: all memcgs, all nodes */
	seq_puts(m, "     Refault distance          Hits\n");
	for (i = 0; i < CP_HIST_GEOM_ROWS(geom); i++) {
		count = 0;
		for_each_possible_cpu(cpu)
			count += per_cpu_ptr(cp.hist, cpu)->rows[i];
		cp_show_row(m, i, geom, count);
	}
	seq_printf(m, "      New               %9llu\n",
		   cp_stat_sum(CP_STAT_NEW));
	seq_printf(m, "   Beyond               %9llu\n",
		   cp_stat_sum(CP_STAT_BEYOND));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(refaults);

/* The lruvecs of one memcg (its nodes), summed by memcgs_show(). */
struct cp_memcg_sum {
	u64 cgroup_ino;
	u64 evictions;
	u16 memcg_id;
	u32 nodes;
	struct cp_slot_hist h;		/* epoch and geom unused */
};

struct cp_memcgs {
	u64 epoch;
	u64 geom;
	unsigned int n;
	struct cp_memcg_sum *v;		/* CP_LRUVEC_SLOTS */
};

static void cp_sum_memcg(void *arg, const struct cp_lruvec_slot *s)
{
	struct cp_memcgs *a = arg;
	struct cp_memcg_sum *e;
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].memcg_id == s->memcg_id &&
		    a->v[i].cgroup_ino == s->cgroup_ino)
			break;
	if (i == a->n) {
		if (a->n == CP_LRUVEC_SLOTS)
			return;
		a->n++;
		a->v[i].memcg_id = s->memcg_id;
		a->v[i].cgroup_ino = s->cgroup_ino;
	}
	e = &a->v[i];
	e->nodes++;
	e->evictions += s->lc.now;
	/* counts of an earlier reset or geometry are void */
	if (s->h.epoch != a->epoch || s->h.geom != a->geom)
		return;
	e->h.refaults += s->h.refaults;
	e->h.new_pages += s->h.new_pages;
	e->h.beyond += s->h.beyond;
	for (i = 0; i < CP_SLOT_HIST_ROWS; i++)
		e->h.rows[i] += s->h.rows[i];
}

/*
 * memcgs: the refault histogram of each memcg with state slots, its
 * lruvecs' summed; distances in evictions of each lruvec (its own clock).
 */
static int memcgs_show(struct seq_file *m, void *unused)
{
	struct cp_memcgs a = {
		.epoch = atomic64_read(&cp.hist_epoch),
		.geom = READ_ONCE(cp.hist_geom),
	};
	u32 rows = min_t(u32, CP_HIST_GEOM_ROWS(a.geom), CP_SLOT_HIST_ROWS);
	unsigned int i, r;

	a.v = kvcalloc(CP_LRUVEC_SLOTS, sizeof(*a.v), GFP_KERNEL);
	if (!a.v)
		return -ENOMEM;
	if (cp_lruvec_stats(cp_sum_memcg, &a)) {
		kvfree(a.v);
		return -ENOMEM;
	}
	seq_printf(m, "memcg_hist %u\n", READ_ONCE(cp.memcg_hist));
	seq_puts(m, "clock lruvec\n");
	seq_printf(m, "width %u\n", CP_HIST_GEOM_WIDTH(a.geom));
	seq_printf(m, "rows %u\n", rows);
	seq_puts(m, "memcg cgroup_ino nodes evictions refaults new beyond hist\n");
	for (i = 0; i < a.n; i++) {
		const struct cp_memcg_sum *e = &a.v[i];

		seq_printf(m, "%u %llu %u %llu %llu %llu %llu", e->memcg_id,
			   e->cgroup_ino, e->nodes, e->evictions,
			   e->h.refaults, e->h.new_pages, e->h.beyond);
		for (r = 0; r < rows; r++)
			seq_printf(m, " %llu", e->h.rows[r]);
		seq_putc(m, '\n');
	}
	kvfree(a.v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(memcgs);

/*
 * reset: "1" clears the statistics and the histogram, "refaults" the
 * histogram alone (and the verify comparison, which counts the same
 * refaults).  The histogram file itself is read-only: under kernel
 * lockdown debugfs refuses to open a writable file even for reading.
 */
static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[16];

	if (len >= sizeof(buf)) {
		cp_refuse("reset: write 1 (statistics and histogram) or refaults (histogram)\n");
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "1")) {
		cp_stats_reset();
	} else if (!sysfs_streq(buf, "refaults")) {
		cp_refuse("reset: write 1 (statistics and histogram) or refaults (histogram)\n");
		return -EINVAL;
	}
	cp_hist_reset();
	return len;
}

/*
 * verify: "INO PAGES" starts recording the exact eviction time of pages
 * 0..PAGES-1 of inode INO, and compares every refault's estimated distance
 * with the exact one; "0" stops.  Reading shows the comparison.
 */
static void cp_verify_replace(struct cp_verify *v)
{
	struct cp_verify *old;

	mutex_lock(&cp.knob_lock);
	old = rcu_replace_pointer(cp.verify, v, lockdep_is_held(&cp.knob_lock));
	mutex_unlock(&cp.knob_lock);
	synchronize_rcu();	/* probe handlers run with preemption off */
	vfree(old);
}

static ssize_t verify_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	unsigned long ino, pages = 0;
	struct cp_verify *v = NULL;
	char buf[48];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%lu %lu", &ino, &pages) < 1 || (ino && !pages) ||
	    pages > totalram_pages() * 4) {
		cp_refuse("verify: write \"INO PAGES\" (PAGES up to 4x RAM pages) or 0\n");
		return -EINVAL;
	}
	if (ino) {
		v = vzalloc(struct_size(v, clock, pages));
		if (!v)
			return -ENOMEM;
		v->ino = ino;
		v->pages = pages;
	}
	cp_verify_replace(v);
	return len;
}

static const char * const cp_verify_names[CP_NR_VERIFY] = {
	[CP_VERIFY_REFAULTS] = "verified_refaults",
	[CP_VERIFY_WITHIN_1] = "within_1pct",
	[CP_VERIFY_WITHIN_5] = "within_5pct",
	[CP_VERIFY_WITHIN_10] = "within_10pct",
	[CP_VERIFY_OUTSIDE_10] = "outside_10pct",
	[CP_VERIFY_UNRECORDED] = "unrecorded",
	[CP_VERIFY_WITHIN_STEP] = "within_clock_step",
};

static int verify_show(struct seq_file *m, void *p)
{
	struct cp_verify *v;
	int i;

	rcu_read_lock();
	v = rcu_dereference(cp.verify);
	seq_printf(m, "ino %lu\npages %lu\n", v ? v->ino : 0,
		   v ? v->pages : 0);
	for (i = 0; i < CP_NR_VERIFY; i++)
		seq_printf(m, "%s %llu\n", cp_verify_names[i],
			   v ? (u64)atomic64_read(&v->counts[i]) : 0);
	if (v) {
		u64 geom = READ_ONCE(cp.hist_geom);

		/* The same rows as the refaults file, by exact distance. */
		seq_puts(m, "       Exact distance          Hits\n");
		for (i = 0; i < CP_HIST_GEOM_ROWS(geom); i++)
			cp_show_row(m, i, geom, atomic64_read(&v->rows[i]));
	}
	rcu_read_unlock();
	return 0;
}

static int verify_open(struct inode *inode, struct file *file)
{
	return single_open(file, verify_show, NULL);
}

static const struct file_operations cp_verify_fops = {
	.owner = THIS_MODULE,
	.open = verify_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = verify_write,
};

static const struct file_operations cp_reset_fops = {
	.owner = THIS_MODULE,
	.write = reset_write,
	.llseek = noop_llseek,
};

static ssize_t mode_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	const char *name = cp_mode_names[READ_ONCE(cp.mode)];
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%s\n", name);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char buf[16];
	int ret;

	if (len >= sizeof(buf)) {
		cp_refuse("mode: value too long\n");
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = cp_mode_set(buf);
	return ret ? ret : len;
}

static const struct file_operations cp_mode_fops = {
	.owner = THIS_MODULE,
	.read = mode_read,
	.write = mode_write,
	.llseek = default_llseek,
};

static void cp_debugfs_init(void)
{
	int i;

	cp_debugfs = debugfs_create_dir("clockpro", NULL);
	debugfs_create_file("stats", 0444, cp_debugfs, NULL, &stats_fops);
	debugfs_create_file("lruvecs", 0444, cp_debugfs, NULL, &lruvecs_fops);
	debugfs_create_file("memcgs", 0444, cp_debugfs, NULL, &memcgs_fops);
	debugfs_create_file("refaults", 0444, cp_debugfs, NULL,
			    &refaults_fops);
	debugfs_create_file("reset", 0200, cp_debugfs, NULL, &cp_reset_fops);
	debugfs_create_file("mode", 0644, cp_debugfs, NULL, &cp_mode_fops);
	debugfs_create_file("verify", 0600, cp_debugfs, NULL, &cp_verify_fops);
	for (i = 0; i < CP_NR_KNOBS; i++)
		debugfs_create_file_unsafe(cp_knobs[i].name, 0644, cp_debugfs,
					   &cp_knobs[i], &cp_knob_fops);
}

/* === Module init and exit === */

static void *cp_find_root_memcg(void)
{
	struct mem_cgroup *memcg, *root;

	if (mem_cgroup_disabled())
		return NULL;
	memcg = get_mem_cgroup_from_mm(NULL);
	if (!memcg)
		return NULL;
	for (root = memcg; parent_mem_cgroup(root);)
		root = parent_mem_cgroup(root);
	css_put(&memcg->css);
	return root;		/* the root memcg is never freed */
}

/*
 * Go live, knob_lock held: the histogram geometry of the knobs as they are
 * now, the mode requested so far (by insmod or by a parameter write during
 * init), checked as a write of it would be.
 */
static int cp_go_live(void)
{
	int ret;

	lockdep_assert_held(&cp.knob_lock);
	if (cp_mode_requested == CP_MODE_ENFORCE) {
		ret = cp_enforce_allowed();
		if (ret) {
			cp_enforce_refuse("mode=enforce", ret);
			return ret;
		}
	}
	cp_hist_refit();
	cp_hist_reset();
	WRITE_ONCE(cp.mode, cp_mode_requested);
	cp_live = true;
	return 0;
}

/*
 * The tables: pages from above ZONE_DMA.
 *
 * The module is loaded when memory is full, as it usually is.  Reclaim
 * may then hand its tables pages of ZONE_DMA (seen after an MGLRU run,
 * whose lists give reclaim the zone's pages first).  On a machine whose
 * DMA zone serves ordinary allocations (below about 4 GiB, where the
 * zone's lowmem reserve, a 256th of the pages above it, is smaller than
 * the zone), a few hundred unmovable pages there pin one of its eight
 * pageblocks unmovable for as long as the module stays: the page cache
 * that later falls back into the zone steals from that block a page at a
 * time, every steal boosts the zone's watermark, and kswapd reclaims the
 * DMA zone alone, walking the node's lists for its few pages
 * (docs/results.md, seventeenth session).
 *
 * So the tables are built page by page.  A DMA page, on a node with
 * zones above DMA, is set aside while the allocation goes on (once the
 * zone is down to its reserve the allocator hands out no more) and freed
 * at the end; at most as many as the zone manages, and only pages above
 * the reserve that GFP_DMA users keep.  The blocks they came from stay
 * typed unmovable, but free: by the allocator's rules a page cache
 * fallback into a free block takes the whole block back.  The module's
 * text and per-CPU data (40-90 pages) are not the module's to place.
 */
struct cp_area {
	void *addr;
	struct page **pages;
	unsigned int nr;
};

static struct cp_area cp_table_area, cp_lruvec_area;

static bool cp_page_low_zone(struct page *page)
{
#ifdef CONFIG_ZONE_DMA
	struct pglist_data *pgdat = page_pgdat(page);
	int z;

	if (page_zonenum(page) != ZONE_DMA)
		return false;
	for (z = ZONE_DMA + 1; z < MAX_NR_ZONES; z++)
		if (managed_zone(&pgdat->node_zones[z]))
			return true;
#endif
	return false;
}

static void cp_area_free(struct cp_area *a)
{
	unsigned int i;

	if (a->addr)
		vunmap(a->addr);
	for (i = 0; i < a->nr; i++)
		__free_page(a->pages[i]);
	kvfree(a->pages);
	*a = (struct cp_area){ 0 };
}

/* zeroed, page-aligned, virtually contiguous: @size bytes at a->addr */
static int cp_area_alloc(struct cp_area *a, size_t size)
{
	unsigned int nr = DIV_ROUND_UP(size, PAGE_SIZE), declined = 0;
	unsigned long cap = 0;
	struct page *page, *tmp;
	LIST_HEAD(aside);
	int ret = -ENOMEM;

#ifdef CONFIG_ZONE_DMA
	{
		int nid;

		for_each_online_node(nid)
			cap += zone_managed_pages(&NODE_DATA(nid)->node_zones[ZONE_DMA]);
	}
#endif
	*a = (struct cp_area){ 0 };
	a->pages = kvcalloc(nr, sizeof(*a->pages), GFP_KERNEL);
	if (!a->pages)
		return -ENOMEM;
	while (a->nr < nr) {
		cond_resched();
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			goto out;
		if (declined < cap && cp_page_low_zone(page)) {
			list_add(&page->lru, &aside);
			declined++;
			continue;
		}
		a->pages[a->nr++] = page;
	}
	a->addr = vmap(a->pages, nr, VM_MAP, PAGE_KERNEL);
	if (!a->addr)
		goto out;
	ret = 0;
	if (declined)
		pr_info("%u pages for the tables came from ZONE_DMA: set aside, taken from above it\n",
			declined);
out:
	list_for_each_entry_safe(page, tmp, &aside, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	if (ret)
		cp_area_free(a);
	return ret;
}

static int __init clockpro_init(void)
{
	u64 entries = table_pages;
	u32 nbuckets;
	int i, ret;

	if (!entries) {
		if (!table_pct || table_pct > 1000) {
			pr_err("table_pct=%u out of range 1..1000\n", table_pct);
			return -EINVAL;
		}
		entries = (u64)totalram_pages() * table_pct / 100;
	}
	if (entries > (u64)totalram_pages() * 10) {
		pr_err("table_pages=%llu is more than 10x RAM pages\n", entries);
		return -EINVAL;
	}

	nbuckets = cp_table_buckets(entries);
	if (cp_area_alloc(&cp_table_area, cp_table_bytes(nbuckets))) {
		pr_err("cannot allocate %zu bytes for the table\n",
		       cp_table_bytes(nbuckets));
		return -ENOMEM;
	}
	cp.slots = cp_table_area.addr;
	cp_table_init(&cp.table, cp.slots, nbuckets);

	ret = -ENOMEM;
	cp.stats = alloc_percpu(struct cp_pcpu_stats);
	if (!cp.stats)
		goto err_free_table;
	cp.hist = alloc_percpu(struct cp_hist);
	if (!cp.hist)
		goto err_free_stats;
	if (cp_area_alloc(&cp_lruvec_area,
			  array_size(CP_LRUVEC_SLOTS, sizeof(*cp.lruvecs))))
		goto err_free_hist;
	cp.lruvecs = cp_lruvec_area.addr;
	for (i = 0; i < CP_LRUVEC_SLOTS; i++)
		raw_spin_lock_init(&cp.lruvecs[i].lock);
	cp.root_memcg = cp_find_root_memcg();

	/*
	 * Everything a probe or a knob write touches exists from here on.
	 * The hooks of the mode go live with it: a mode written meanwhile
	 * waits for both.
	 */
	mutex_lock(&cp.knob_lock);
	ret = cp_hooks_register();
	if (!ret) {
		ret = cp_go_live();
		if (!ret && cp.mode == CP_MODE_ENFORCE)
			ret = cp_hooks_arm(true);
		if (ret) {
			cp_live = false;
			WRITE_ONCE(cp.mode, CP_MODE_OBSERVE);
			cp_lru_gen_restore("load failed");
		}
	}
	mutex_unlock(&cp.knob_lock);
	if (ret) {
		cp_hooks_unregister();	/* the work a hook may have queued */
		goto err_free_lruvecs;
	}

	cp_debugfs_init();
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		pr_info("kernel lockdown: the debugfs files that take writes cannot be opened; tunables and mode are in /sys/module/clockpro/parameters\n");
	pr_info("%s mode, remembering %llu pages in %zu KiB (%u buckets), distance step %llu pages\n",
		cp_mode_names[READ_ONCE(cp.mode)], cp.table.capacity,
		cp_table_bytes(nbuckets) >> 10, nbuckets, 1ULL << cp.table.shift);
	return 0;

err_free_lruvecs:
	cp_area_free(&cp_lruvec_area);
err_free_hist:
	free_percpu(cp.hist);
err_free_stats:
	free_percpu(cp.stats);
err_free_table:
	cp_area_free(&cp_table_area);
	return ret;
}

static void __exit clockpro_exit(void)
{
	/* Parameter writes from now on only record their value. */
	mutex_lock(&cp.knob_lock);
	cp_live = false;
	WRITE_ONCE(cp.mode, CP_MODE_OBSERVE);
	mutex_unlock(&cp.knob_lock);

	debugfs_remove_recursive(cp_debugfs);	/* waits for its readers */
	cp_hooks_unregister();			/* waits for the probes */
	cancel_delayed_work_sync(&cp_lru_gen_restore_work);
	mutex_lock(&cp.knob_lock);
	cp_lru_gen_restore("module unloaded");
	mutex_unlock(&cp.knob_lock);
	vfree(rcu_dereference_protected(cp.verify, true));
	cp_area_free(&cp_lruvec_area);
	free_percpu(cp.hist);
	free_percpu(cp.stats);
	cp_area_free(&cp_table_area);
	pr_info("unloaded\n");
}

module_init(clockpro_init);
module_exit(clockpro_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CLOCK-Pro nonresident page tracking, refault histograms and active-list balancing");
MODULE_VERSION("0.1");
