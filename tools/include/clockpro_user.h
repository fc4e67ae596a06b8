/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the kernel primitives include/clockpro/platform.h
 * names, so module/nonres.c and module/policy.c build unchanged in the unit
 * tests, the fuzzer, the benchmark and the simulator (-I tools/include).
 */
#ifndef _CLOCKPRO_USER_H
#define _CLOCKPRO_USER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

typedef struct { int64_t counter; } cp_atomic64_t;

#ifndef READ_ONCE
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif
#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline		__attribute__((__noinline__))
#endif
#ifndef OPTIMIZER_HIDE_VAR
#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#endif
#ifndef BIT
#define BIT(n)			(1UL << (n))
#endif
#ifndef GENMASK
#define GENMASK(h, l)		(((~0U) << (l)) & (~0U >> (31 - (h))))
#endif
#ifndef min
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#endif
#ifndef clamp
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#endif

static inline s64 cp_atomic64_read(const cp_atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void cp_atomic64_set(cp_atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline s64 cp_atomic64_add_return(s64 i, cp_atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

/* Returns the value found at @p, like the kernel's cmpxchg64(). */
static inline u64 cp_cmpxchg64(u64 *p, u64 old, u64 new)
{
	__atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_RELAXED);
	return old;
}

#endif /* _CLOCKPRO_USER_H */
