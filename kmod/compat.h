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
 * GB_HAVE_KERNEL_SENDPAGE  kernel_sendpage() exists (gone in 6.5).
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

/**
 * gb_sock_sendpage - send @len bytes of @page from @off without copying
 * @sock:  connected stream socket
 * @page:  page with a reference the caller holds across the call
 * @off:   offset in @page
 * @len:   count, at most PAGE_SIZE - @off
 * @flags: MSG_* flags
 *
 * Either way the socket buffers reference @page instead of copying it
 * (when the route does scatter-gather, as every real device and loopback
 * does), so the page must not be rewritten until its count drops: the
 * pool's quarantine and the immutability of tail pages see to that. The
 * page must pass sendpage_ok() (not slab, count >= 1): MSG_SPLICE_PAGES
 * fails such a page with -EIO and a warning, kernel_sendpage() silently
 * copies it. Head pages (alloc_pages), page-cache pages and the bounce page
 * of gb_tail_get_page() (alloc_page) all pass.
 *
 * Return: bytes sent, or -errno (-EAGAIN with MSG_DONTWAIT on a full socket).
 */
static inline int gb_sock_sendpage(struct socket *sock, struct page *page,
				   unsigned int off, unsigned int len,
				   int flags)
{
#ifdef GB_HAVE_KERNEL_SENDPAGE
	return kernel_sendpage(sock, page, off, len, flags);
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
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
