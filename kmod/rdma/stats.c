// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): statistics and debugfs.
 *
 * Counters: every connection counts in its own struct gb_rdma_stats,
 * written by conn->work only; a closing connection adds them to the
 * totals of closed connections (gb_rdma_stats_add()). Netlink reads the
 * totals and walks the connections through the registry
 * (gb_rdma_xport_stats(), gb_rdma_nl_walk()); debugfs goblin/rdma and
 * goblin/rdma-fault/ are for the functional tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include <linux/interrupt.h>

#include "rdma_int.h"

void gb_rdma_stats_add(struct gb_rdma_stats *d,
		       const struct gb_rdma_stats *s, const u64 *errors)
{
	int i;

	d->requests += s->requests;
	d->gets += s->gets;
	d->keys += s->keys;
	d->hits += s->hits;
	d->misses += s->misses;
	d->sets += s->sets;
	d->bytes_written += s->bytes_written;
	d->bytes_read += s->bytes_read;
	d->chunks += s->chunks;
	d->window_waits += s->window_waits;
	d->records_in += s->records_in;
	d->records_out += s->records_out;
	d->rw_ctxs += s->rw_ctxs;
	d->rw_mr_ctxs += s->rw_mr_ctxs;
	d->bytes_read_direct += s->bytes_read_direct;
	d->get_sends += s->get_sends;
	d->inline_values += s->inline_values;
	d->folded += s->folded;
	d->lookups += s->lookups;
	d->leases += s->leases;
	d->leases_expired += s->leases_expired;
	d->leases_released += s->leases_released;
	d->leases_busy_conn += s->leases_busy_conn;
	d->leases_busy_global += s->leases_busy_global;
	for (i = 0; i < GB_RDMA_E_NR; i++)
		d->errors[i] += errors[i];
}

/* ---------------------------------------------------------------------- */
/* statistics for netlink */

/* Adapter for the generic connection dump (kmod/registry.h). */
/*
 * Counters of a live connection are written by conn->work without a lock;
 * netlink reads them as a monitoring snapshot. The races are intended:
 * an aligned 64-bit load does not tear on the 64-bit kernels we build for.
 */
static u64 gb_rdma_peek(const u64 *counter)
{
	return data_race(*counter); /* see above: snapshot, may be stale */
}

static u32 gb_rdma_peek32(const u32 *counter)
{
	return data_race(*counter); /* see above: snapshot, may be stale */
}

int gb_rdma_nl_walk(u64 *cursor, gb_conn_visit_fn fn, void *arg)
{
	struct gb_rdma_conn *conn;
	struct gb_conn_info *info;
	int ret = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		if (conn->id <= *cursor)
			continue;
		memset(info, 0, sizeof(*info));
		info->kind = GB_LISTENER_RDMA;
		info->listener_id = conn->lis->id;
		info->id = conn->id;
		info->peer = conn->cm_id_peer;
		info->rx_bytes = gb_rdma_peek(&conn->st.records_in) *
				 GB_RDMA_RECORD_SIZE +
				 gb_rdma_peek(&conn->st.bytes_read);
		info->tx_bytes = gb_rdma_peek(&conn->st.records_out) *
				 GB_RDMA_RECORD_SIZE +
				 gb_rdma_peek(&conn->st.bytes_written);
		info->cmds = gb_rdma_peek(&conn->st.requests);
		info->idle = (jiffies - READ_ONCE(conn->last_req)) / HZ;
		info->cpu = READ_ONCE(conn->ran_cpu);
		strscpy(info->device, dev_name(&conn->dev->ibdev->dev),
			sizeof(info->device));
		info->rdma = true;
		info->hits = gb_rdma_peek(&conn->st.hits);
		info->misses = gb_rdma_peek(&conn->st.misses);
		info->bytes_written = gb_rdma_peek(&conn->st.bytes_written);
		info->bytes_read = gb_rdma_peek(&conn->st.bytes_read);
		info->windows_in_flight = gb_rdma_peek32(&conn->win_client);
		spin_lock(&conn->lock);
		memcpy(info->errors, conn->errors, sizeof(info->errors));
		spin_unlock(&conn->lock);
		ret = fn(info, arg);
		if (ret)
			break;
		*cursor = conn->id;
	}
	mutex_unlock(&gb_rdma_lock);
	kfree(info);
	return ret;
}

void gb_rdma_get_stats(struct gb_rdma_stats *st, u32 *conns)
{
	struct gb_rdma_conn *conn;
	u64 errors[GB_RDMA_E_NR];

	mutex_lock(&gb_rdma_lock);
	*st = gb_rdma_closed;
	st->errors[GB_RDMA_E_REJECT] += gb_rdma_rejects;
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		spin_lock(&conn->lock);
		memcpy(errors, conn->errors, sizeof(errors));
		spin_unlock(&conn->lock);
		gb_rdma_stats_add(st, &conn->st, errors);
		st->windows_in_flight += gb_rdma_peek32(&conn->win_client);
	}
	if (conns)
		*conns = gb_rdma_nconns;
	mutex_unlock(&gb_rdma_lock);
}

/* Adapter from gb_rdma_get_stats() to the registry's totals. */
void gb_rdma_xport_stats(struct gb_xport_stats *xs)
{
	struct gb_rdma_stats st;

	gb_rdma_get_stats(&st, &xs->conns);
	xs->requests = st.requests;
	xs->hits = st.hits;
	xs->misses = st.misses;
	xs->sets = st.sets;
	xs->bytes_written = st.bytes_written;
	xs->bytes_read = st.bytes_read;
	xs->windows_in_flight = st.windows_in_flight;
	memcpy(xs->errors, st.errors, sizeof(xs->errors));
}

/*
 * /sys/kernel/debug/goblin/rdma: totals and one line per connection, for
 * the functional tests (e.g. proof that rw ctxs registered MRs).
 */
static struct dentry *gb_rdma_dbg;

static int gb_rdma_dbg_show(struct seq_file *m, void *v)
{
	struct gb_rdma_stats *st;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev;
	u32 conns;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	gb_rdma_get_stats(st, &conns);
	seq_printf(m, "conns %u\nrequests %llu\nrw_ctxs %llu\nrw_mr_ctxs %llu\n",
		   conns, st->requests, st->rw_ctxs, st->rw_mr_ctxs);
	seq_printf(m, "bytes_written %llu\nbytes_read %llu\nbytes_read_direct %llu\n",
		   st->bytes_written, st->bytes_read, st->bytes_read_direct);
	/* 3.2: SENDs per GET, inline values, records with others folded in */
	seq_printf(m, "gets %llu\nget_sends %llu\ninline_values %llu\nfolded %llu\n",
		   st->gets, st->get_sends, st->inline_values, st->folded);
	/* 3.3: one-sided reads */
	seq_printf(m, "lookups %llu\nleases %llu\nleases_expired %llu\nleases_released %llu\n",
		   st->lookups, st->leases, st->leases_expired,
		   st->leases_released);
	/* leases refused (BUSY) by the byte caps; value bytes leased now */
	seq_printf(m, "leases_busy_conn %llu\nleases_busy_global %llu\nleased_bytes %llu\n",
		   st->leases_busy_conn, st->leases_busy_global,
		   gb_rdma_leased_bytes());
	kfree(st);
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(dev, &gb_rdma_devs, node)
		seq_printf(m, "dev %s pd %d conns %u dead %d\n",
			   dev_name(&dev->ibdev->dev), !!dev->pd, dev->nconns,
			   dev->dead);
	/*
	 * sq, rq: most WRs ever outstanding on each queue, drain included;
	 * leases: held now (3.3, -1: not negotiated)
	 */
	list_for_each_entry(conn, &gb_rdma_conns, node)
		seq_printf(m, "conn %llu mr %d quiesce %d windows %u sq_avail %d rw_ctxs %llu rw_mr_ctxs %llu cqe %u sq %d rq %u fold %u leases %d\n",
			   conn->id, conn->use_mr, conn->mr_quiesce, conn->nwin,
			   READ_ONCE(conn->sq_avail), conn->st.rw_ctxs,
			   conn->st.rw_mr_ctxs, conn->ncqe, conn->sq_size + 1,
			   conn->nrx + 1,
			   conn->geom.flags & GB_RDMA_CONNECT_FOLD ?
			   conn->rec_size : 0,
			   gb_rdma_conn_onesided(conn) ?
			   /* a snapshot, as in gb_rdma_peek() */
			   (int)hweight64(data_race(conn->lease_live)) : -1);
	mutex_unlock(&gb_rdma_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gb_rdma_dbg);

/*
 * rdma-fault/qp_fatal: write a connection id to raise IB_EVENT_QP_FATAL on
 * its QP from softirq context while process context holds conn->lock with
 * BHs enabled, as siw and bnxt_re can deliver it while a completion
 * handler holds the lock. The write returns once the event was delivered
 * under the lock, or -ETIMEDOUT.
 *
 * A high-priority tasklet, not a timer: Linux 6.1 leaves every softirq
 * but HI and TASKLET to ksoftirqd while ksoftirqd is runnable, and it
 * cannot run on a CPU spinning here with preemption off, so a timer
 * scheduled on this CPU could miss the whole wait (func/rdma's qpfatal
 * case failed so on 6.1). HI runs at the next interrupt's exit either way.
 */
struct gb_rdma_inject {
	struct tasklet_struct tasklet;
	struct gb_rdma_conn *conn;
	bool fired;
};

static void gb_rdma_inject_fire(struct tasklet_struct *t)
{
	struct gb_rdma_inject *inj = from_tasklet(inj, t, tasklet);
	struct ib_event ev = {
		.device = inj->conn->dev->ibdev,
		.event = IB_EVENT_QP_FATAL,
	};

	ev.element.qp = inj->conn->qp;
	gb_rdma_qp_event(&ev, inj->conn);
	WRITE_ONCE(inj->fired, true);
}

static ssize_t gb_rdma_fault_qp_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct gb_rdma_inject inj = {};
	struct gb_rdma_conn *conn;
	bool held = false;
	int ret, i;
	u64 id;

	ret = kstrtou64_from_user(ubuf, len, 0, &id);
	if (ret)
		return ret;
	mutex_lock(&gb_rdma_lock);	/* keeps the connection listed */
	ret = -ENOENT;
	list_for_each_entry(conn, &gb_rdma_conns, node) {
		if (conn->id != id || test_bit(GB_CONN_CLOSING, &conn->flags))
			continue;
		inj.conn = conn;
		tasklet_setup(&inj.tasklet, gb_rdma_inject_fire);
		spin_lock(&conn->lock);
		/* on this CPU: preemption is off under the lock */
		tasklet_hi_schedule(&inj.tasklet);
		for (i = 0; i < 500 && !READ_ONCE(inj.fired); i++)
			mdelay(1);
		held = READ_ONCE(inj.fired);
		spin_unlock(&conn->lock);
		/* the on-stack tasklet has run once this returns */
		tasklet_kill(&inj.tasklet);
		ret = held ? 0 : -ETIMEDOUT;
		break;
	}
	mutex_unlock(&gb_rdma_lock);
	return ret ? ret : len;
}

static const struct file_operations gb_rdma_fault_qp_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = gb_rdma_fault_qp_write,
};

static int gb_rdma_fault_node_get(void *data, u64 *val)
{
	*val = (s64)READ_ONCE(gb_rdma_fault_dev_node);
	return 0;
}

static int gb_rdma_fault_node_set(void *data, u64 val)
{
	s64 node = (s64)val;

	if (node != GB_RDMA_NODE_REAL && node != NUMA_NO_NODE &&
	    (node < 0 || node >= MAX_NUMNODES))
		return -EINVAL;
	WRITE_ONCE(gb_rdma_fault_dev_node, (int)node);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(gb_rdma_fault_node_fops,
				gb_rdma_fault_node_get, gb_rdma_fault_node_set,
				"%lld\n");

static struct dentry *gb_rdma_fault_dir;

void gb_rdma_dbg_init(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL), *f;

	if (IS_ERR_OR_NULL(dir))
		return;
	gb_rdma_dbg = debugfs_create_file("rdma", 0400, dir, NULL,
					  &gb_rdma_dbg_fops);
	debugfs_create_u32("rdma_set_delay_ms", 0600, dir,
			   &gb_rdma_set_delay_ms);
	f = debugfs_create_dir("rdma-fault", dir);
	dput(dir);
	if (IS_ERR(f))
		return;
	gb_rdma_fault_dir = f;
	debugfs_create_u32("release_delay_ms", 0600, f,
			   &gb_rdma_fault_release_ms);
	debugfs_create_u32("late_delay_ms", 0600, f, &gb_rdma_fault_late_ms);
	debugfs_create_u32("setup_delay_ms", 0600, f, &gb_rdma_fault_setup_ms);
	debugfs_create_u32("accept_delay_ms", 0600, f,
			   &gb_rdma_fault_accept_ms);
	debugfs_create_u32("pre_accept_delay_ms", 0600, f,
			   &gb_rdma_fault_pre_accept_ms);
	debugfs_create_u32("remove_delay_ms", 0600, f,
			   &gb_rdma_fault_remove_ms);
	debugfs_create_u32("max_cqe", 0600, f, &gb_rdma_fault_max_cqe);
	debugfs_create_file_unsafe("dev_node", 0600, f, NULL,
				   &gb_rdma_fault_node_fops);
	debugfs_create_u32("set_nomem", 0600, f, &gb_rdma_fault_set_nomem);
	debugfs_create_u32("lookup_reap_delay_ms", 0600, f,
			   &gb_rdma_fault_lookup_reap_ms);
	debugfs_create_u32("ack_timeout", 0600, f, &gb_rdma_fault_ack_timeout);
	debugfs_create_bool("poison", 0600, f, &gb_rdma_fault_poison);
	debugfs_create_file("qp_fatal", 0200, f, NULL, &gb_rdma_fault_qp_fops);
}

void gb_rdma_dbg_exit(void)
{
	struct dentry *dir = debugfs_lookup("goblin", NULL);

	debugfs_remove(gb_rdma_fault_dir);
	gb_rdma_fault_dir = NULL;
	debugfs_remove(gb_rdma_dbg);
	gb_rdma_dbg = NULL;
	if (IS_ERR_OR_NULL(dir))
		return;
	debugfs_lookup_and_remove("rdma_set_delay_ms", dir);
	dput(dir);
}
