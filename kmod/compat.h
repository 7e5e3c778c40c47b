/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Goblin Store: kernel API compatibility.
 *
 * Supported kernels: Debian 12's 6.1 and Debian's 6.12. Every difference
 * between them that the module meets is bridged here, keyed on the feature,
 * not on the version: Kbuild greps the headers of the kernel being built
 * against and passes one -DGB_HAVE_* per feature (see the probes in Kbuild).
 * To add a kernel, build against it (W=1 C=1), add a probe for each API
 * that changed and a helper below, and keep the other files free of #ifdefs.
 *
 * GB_HAVE_MNT_IDMAP        mnt_idmap() and struct mnt_idmap (6.3+) instead
 *                          of mnt_user_ns(); vfs_*() take the idmap.
 * GB_HAVE_KERNEL_SENDPAGE  kernel_sendpage() exists (gone in 6.5): value
 *                          runs go out one page per call instead of one
 *                          sendmsg(MSG_SPLICE_PAGES) per run.
 *                          MSG_SPLICE_PAGES cannot be the key: 6.1 stable
 *                          defines the flag for a few backports, but its TCP
 *                          ignores it (and would copy the bytes).
 * GB_HAVE_GENL_INFO_DUMP   dumps carry a struct genl_info, reached with
 *                          genl_info_dump() (6.6+); genl_dumpit_info's own
 *                          attrs member is gone.
 *
 * Page-cache readahead needs no shim: folio_test_readahead() and
 * page_cache_async_ra() exist with the same signatures on both kernels,
 * and tail.c uses them directly.
 */
#ifndef _GB_COMPAT_H
#define _GB_COMPAT_H

#include <linux/bvec.h>
#include <linux/mount.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/genetlink.h>

/* The id-mapping argument of vfs_mkdir(), vfs_unlink() and friends. */
#ifdef GB_HAVE_MNT_IDMAP
#define gb_mnt_idmap(mnt)	mnt_idmap(mnt)
#else
#define gb_mnt_idmap(mnt)	mnt_user_ns(mnt)
#endif

/*
 * Whether gb_sock_sendpages() hands a whole run to the socket in one call
 * (sendmsg with MSG_SPLICE_PAGES) or calls kernel_sendpage() per page.
 */
#ifdef GB_HAVE_KERNEL_SENDPAGE
#define GB_SENDPAGES_ONE_CALL	false
#else
#define GB_SENDPAGES_ONE_CALL	true
#endif

/**
 * gb_sock_sendpages - send a run of pages without copying them
 * @sock:  connected stream socket
 * @bv:    the run: @nr (page, offset, length) pieces, each within its page;
 *         the caller holds a reference on every page across the call
 * @nr:    pieces in @bv, at least 1
 * @len:   their total length
 * @flags: MSG_* flags (MSG_MORE: more bytes follow the run)
 * @calls: incremented by the number of socket send calls made
 *
 * Either way the socket buffers reference the pages instead of copying
 * them (when the route does scatter-gather, as every real device and
 * loopback does) and take their own page references, so the caller may
 * drop its own right after the call; a page must not be rewritten until
 * its count drops: the pool's quarantine and the immutability of tail
 * pages see to that. Every page must pass sendpage_ok() (not slab, count
 * >= 1), and callers must never pass one that does not: MSG_SPLICE_PAGES
 * fails such a page with -EIO and a warning, but 6.1's kernel_sendpage()
 * only warns once (WARN_ONCE) and sends it zero-copy anyway (TCP rejects
 * it only with CONFIG_DEBUG_VM), so the socket would reference memory
 * that slab may reuse. The TCP transport checks every page before the
 * call (gb_conn_send_run()). Head pages (alloc_pages), page-cache pages
 * and the bounce page of gb_tail_get_page() (alloc_page) all pass.
 *
 * Without kernel_sendpage() (6.5+) the run is one sendmsg(MSG_SPLICE_PAGES)
 * over an ITER_BVEC. With it (6.1, whose TCP ignores MSG_SPLICE_PAGES and
 * would copy) each piece is one kernel_sendpage() and every piece but the
 * last carries MSG_MORE | MSG_SENDPAGE_NOTLAST, as splice does, so TCP
 * neither pushes nor ends a segment inside the run; the loop stops at the
 * first short or failed call.
 *
 * Return: bytes the socket took (fewer than @len on a full socket: resume
 * at that byte), or -errno if it took none (-EAGAIN with MSG_DONTWAIT on a
 * full socket).
 */
static inline int gb_sock_sendpages(struct socket *sock,
				    const struct bio_vec *bv, unsigned int nr,
				    size_t len, int flags, unsigned int *calls)
{
#ifdef GB_HAVE_KERNEL_SENDPAGE
	int n, sent = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		int f = flags;

		if (i + 1 < nr)
			f |= MSG_MORE | MSG_SENDPAGE_NOTLAST;
		n = kernel_sendpage(sock, bv[i].bv_page, bv[i].bv_offset,
				    bv[i].bv_len, f);
		(*calls)++;
		if (n <= 0)
			return sent ? sent : n;
		sent += n;
		if ((unsigned int)n < bv[i].bv_len)
			break;
	}
	return sent;
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, nr, len);
	(*calls)++;
	return sock_sendmsg(sock, &msg);
#endif
}

/* The attributes a dump request carried, parsed against the op's policy. */
static inline struct nlattr **gb_genl_dump_attrs(struct netlink_callback *cb)
{
#ifdef GB_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _GB_COMPAT_H */
