/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few primitives the policy and table code needs, for the kernel and
 * for the user-space build (unit tests, fuzzer, simulator, benchmark).
 *
 * module/nonres.c and module/policy.c include only this header and their
 * own; everything kernel-specific stays in module/clockpro_main.c.  The
 * user-space half follows the tools/testing/radix-tree idea: the same
 * source, compiled with a thin shim instead of <linux/...>.
 */
#ifndef _CLOCKPRO_PLATFORM_H
#define _CLOCKPRO_PLATFORM_H

#ifdef __KERNEL__

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define cp_atomic64_t			atomic64_t

#define cp_atomic64_read(v)		atomic64_read(v)
#define cp_atomic64_set(v, i)		atomic64_set(v, i)
#define cp_atomic64_add_return(i, v)	atomic64_add_return(i, v)
#define cp_cmpxchg64(p, o, n)		cmpxchg64(p, o, n)

#else /* user space: tools/include/clockpro_user.h */

#include "clockpro_user.h"

#endif /* __KERNEL__ */
#endif /* _CLOCKPRO_PLATFORM_H */
