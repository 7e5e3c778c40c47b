// SPDX-License-Identifier: GPL-2.0
/*
 * rxedelay: test-only kprobes that widen rdma_rxe's REG_MR retransmit race
 * (issue 16, tests/func/onesided). Not part of goblin.ko.
 *
 * 6.1's rxe completer, run by the retransmit timer, reads the state of
 * the oldest WQE (COMPST_GET_WQE) and, a few instructions later
 * (COMPST_ERROR_RETRY), looks at it again and at the PSNs to decide on a
 * retry. If in between the requester on another CPU executed that WQE, a
 * REG_MR, and sent the SEND behind it, the retry rewinds to the REG_MR,
 * which rxe_requester() then runs again ("rxe_reg_fast_mr: ... not
 * free"). Two delays make both halves of that window wide:
 *
 * - reg_us at the entry of rxe_reg_fast_mr() (the requester executing a
 *   REG_MR: it stays "posted" meanwhile), and
 * - retry_us in the completer when it enters COMPST_ERROR_RETRY: a kprobe
 *   on __dynamic_pr_debug() matching rxe_completer()'s
 *   "qp#%d state = %s" with "ERROR RETRY" (needs rxe_comp.c's dynamic
 *   debug on: echo 'file rxe_comp.c +p' > .../dynamic_debug/control).
 *
 * The delays busy-wait in kprobe handlers: test guests only.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/dynamic_debug.h>
#include <linux/string.h>

static uint reg_us = 1000;
module_param(reg_us, uint, 0644);
MODULE_PARM_DESC(reg_us, "busy-wait at rxe_reg_fast_mr() entry, us");
static uint retry_us = 3000;
module_param(retry_us, uint, 0644);
MODULE_PARM_DESC(retry_us, "busy-wait entering COMPST_ERROR_RETRY, us");
static atomic_t reg_hits = ATOMIC_INIT(0), retry_hits = ATOMIC_INIT(0);
module_param_named(reg_hits, reg_hits.counter, int, 0444);
module_param_named(retry_hits, retry_hits.counter, int, 0444);

static void rxedelay_wait(uint us)
{
	while (us >= 1000) {
		mdelay(1);
		us -= 1000;
	}
	if (us)
		udelay(us);
}

static int rxedelay_reg(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&reg_hits);
	rxedelay_wait(READ_ONCE(reg_us));
	return 0;
}

static int rxedelay_dbg(struct kprobe *p, struct pt_regs *regs)
{
	const struct _ddebug *d = (const struct _ddebug *)regs->di;
	const char *state = (const char *)regs->cx;

	if (!d || !d->function || strcmp(d->function, "rxe_completer") ||
	    !d->format || !strstr(d->format, "state = %s") || !state ||
	    strcmp(state, "ERROR RETRY"))
		return 0;
	atomic_inc(&retry_hits);
	rxedelay_wait(READ_ONCE(retry_us));
	return 0;
}

static struct kprobe rxedelay_kp_reg = {
	.symbol_name = "rxe_reg_fast_mr",
	.pre_handler = rxedelay_reg,
};

static struct kprobe rxedelay_kp_dbg = {
	.symbol_name = "__dynamic_pr_debug",
	.pre_handler = rxedelay_dbg,
};

static int __init rxedelay_init(void)
{
	int ret = register_kprobe(&rxedelay_kp_reg);

	if (ret)
		return ret;
	ret = register_kprobe(&rxedelay_kp_dbg);
	if (ret)
		unregister_kprobe(&rxedelay_kp_reg);
	return ret;
}

static void __exit rxedelay_exit(void)
{
	unregister_kprobe(&rxedelay_kp_dbg);
	unregister_kprobe(&rxedelay_kp_reg);
}

module_init(rxedelay_init);
module_exit(rxedelay_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test only: widen rdma_rxe's REG_MR retransmit race");
