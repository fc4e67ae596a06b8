/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refaultdist: types shared by refaultdist.bpf.c and refaultdist.c
 */
#ifndef __REFAULTDIST_H
#define __REFAULTDIST_H

#define MAX_SLOTS	64	/* log2 buckets: a u64 distance fits */
#define MAX_LINEAR	1024	/* -b BUCKETS upper bound */

/*
 * Identity of an evicted page, as in module/hooks.c cp_folio_key():
 * page cache: (address_space pointer, host inode number and generation,
 * page index); swap cache: (RD_SWAP_MAPPING, 0, 0, swap entry value).
 * The inode number and generation keep a recycled address_space from
 * matching the entries of a dead inode.
 */
#define RD_SWAP_MAPPING	1ULL	/* never a valid address_space pointer */

struct rd_key {
	__u64 mapping;
	__u64 ino;
	__u64 index;
	__u32 gen;
	__u32 pad;
};

struct rd_val {
	__u64 clock;		/* eviction clock before this eviction */
};

/*
 * Counters, all in pages (a large folio counts folio_nr_pages()), all
 * monotonic: user space prints differences between snapshots.
 */
enum rd_counter {
	RD_EVICTIONS,		/* pages seen at workingset_eviction() */
	RD_EVICT_SWAP,		/*   ... of which swap cache */
	RD_INSERTIONS,		/* new cache folios at folio_add_lru() */
	RD_REFAULTS,		/*   ... found in the table */
	RD_REFAULT_SWAP,	/*   ... of which swap cache */
	RD_NEW,			/*   ... not found, no kernel shadow */
	RD_BEYOND,		/*   ... not found, kernel had a shadow */
	RD_SHADOW,		/* kernel workingset_refault() calls (pages) */
	RD_LARGE_EVICT,		/* pages of evicted large folios */
	RD_UPDATE_ERR,		/* table updates that failed (events) */
	RD_NR_COUNTERS,
};

#endif /* __REFAULTDIST_H */
