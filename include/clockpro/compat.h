/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version drift, in one place.  Nothing else in the module tests
 * LINUX_VERSION_CODE.
 */
#ifndef _CLOCKPRO_COMPAT_H
#define _CLOCKPRO_COMPAT_H

#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/swap.h>
#include <linux/version.h>

/* 6.6 replaced folio_swap_entry() with folio->swap. */
static inline unsigned long cp_folio_swap_val(struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return folio->swap.val;
#else
	return folio_swap_entry(folio).val;
#endif
}

/*
 * Override-return from a kprobe pre-handler at function entry: the
 * return address is still at *sp, so running @stub (an empty notrace
 * function) instead returns straight to the caller.  Argument registers
 * written in the pre-handler are honoured.
 */
#ifdef CONFIG_X86_64
static inline void cp_regs_skip_call(struct pt_regs *regs, unsigned long stub)
{
	instruction_pointer_set(regs, stub);
}

static inline void cp_regs_set_arg0(struct pt_regs *regs, unsigned long v)
{
	regs->di = v;
}
#else
#error "clockpro needs x86-64 (argument registers, override-return)"
#endif

#endif /* _CLOCKPRO_COMPAT_H */
