// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: native RDMA transport, protocol v3 (uapi/linux/goblin_rdma.h,
 * Documentation/rdma-protocol.rst): the connection manager, listeners,
 * devices, module init and exit.
 *
 * The transport's files follow the split of the kernel's NFS/RDMA server
 * (net/sunrpc/xprtrdma/svc_rdma_*.c): transport.c the connection manager,
 * listeners and devices (svc_rdma_transport.c); conn.c connection
 * lifecycle and teardown; recv.c receive, credits and dispatch
 * (svc_rdma_recvfrom.c); get.c sending and the GET push path
 * (svc_rdma_sendto.c); set.c the SET pull path (svc_rdma_rw.c); stats.c
 * statistics and debugfs; lease.c LOOKUP and the leases of one-sided
 * READs (revision 3.3). rdma_int.h declares what they share.
 *
 * Objects and contexts
 * --------------------
 *  gb_rdma_listener  one rdma_cm listening id per configured address.
 *  gb_rdma_dev       per ib_device state, from our ib_client's .add to
 *                    its .remove (device unregistration or module
 *                    unload); its PD is allocated by the first connection
 *                    on the device. Connect requests for a device without
 *                    state (e.g. after .remove) are refused.
 *  gb_rdma_conn      one RC QP with one CQ (IB_POLL_WORKQUEUE), a ring of
 *                    receive records, a pool of send records, and the
 *                    client's bulk windows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": rdma: " fmt

#include "rdma_int.h"

static char *gb_rdma_param = "";
module_param_named(rdma, gb_rdma_param, charp, 0444);
MODULE_PARM_DESC(rdma, "RDMA listener to start at load, \"addr:port\" or \"[v6addr]:port\" (default: none)");

DEFINE_MUTEX(gb_rdma_lock);	/* lists, counters, listener state */
static LIST_HEAD(gb_rdma_listeners);
LIST_HEAD(gb_rdma_devs);
LIST_HEAD(gb_rdma_conns);	/* ascending id */
u32 gb_rdma_nconns;
u32 gb_rdma_max_conns = GB_RDMA_DEF_ALL_CONNS;	/* cap of nconns */
static u32 gb_rdma_next_lis_id;
u64 gb_rdma_next_conn_id;
struct gb_rdma_stats gb_rdma_closed;	/* closed connections */
u64 gb_rdma_rejects;
DECLARE_WAIT_QUEUE_HEAD(gb_rdma_waitq);
struct workqueue_struct *gb_rdma_wq;	/* setup, teardown, timers */
struct workqueue_struct *gb_rdma_io_wq;	/* conn->work */

/* ---------------------------------------------------------------------- */
/* fault injection for the functional tests (debugfs goblin/rdma-fault/) */

/*
 * Race windows of the connection lifecycle are microseconds wide on real
 * hardware; these knobs (all 0 = off) widen them so that tests/func/rdma
 * can hit them on demand. Only root can write them (debugfs, mode 0600).
 */
u32 gb_rdma_fault_release_ms;	/* release: before the QP drain */
u32 gb_rdma_fault_late_ms;	/* release/reject: after unaccounting */
u32 gb_rdma_fault_setup_ms;	/* connect: before the final check */
u32 gb_rdma_fault_accept_ms;	/* connect: after rdma_accept() */
u32 gb_rdma_fault_pre_accept_ms;	/* connect: before rdma_accept() */
u32 gb_rdma_fault_remove_ms;	/* device .remove: at the end */
u32 gb_rdma_fault_max_cqe;	/* pretend the device has this max_cqe */
/* pretend devices are on this node (-1: none), GB_RDMA_NODE_REAL: off */
int gb_rdma_fault_dev_node = GB_RDMA_NODE_REAL;
u32 gb_rdma_fault_set_nomem;	/* fail this many SET allocations */
u32 gb_rdma_fault_lookup_reap_ms;	/* reap R_LOOKUP chains this late */
u32 gb_rdma_fault_ack_timeout;	/* accepted QPs: this local ACK timeout */
bool gb_rdma_fault_poison;	/* poison freed state, free at unload */

#define GB_RDMA_FAULT_DELAY_MAX	60000U

void gb_rdma_fault_delay(const u32 *ms)
{
	u32 v = READ_ONCE(*ms);

	if (unlikely(v))
		msleep(min(v, GB_RDMA_FAULT_DELAY_MAX));
}

/* Freed connection, listener and device state kept while poisoned. */
struct gb_rdma_grave {
	struct list_head node;
	void *obj;
	size_t size;
};

static LIST_HEAD(gb_rdma_graves);
static DEFINE_SPINLOCK(gb_rdma_graves_lock);

/*
 * kfree() @obj; with the poison knob set, fill it with POISON_FREE and
 * keep it until module unload instead, so that a use after free reads
 * the poison (a listener id of 0x6b6b6b6b, a wild pointer) every time.
 */
void gb_rdma_free_state(void *obj, size_t size)
{
	struct gb_rdma_grave *g;

	if (!obj)
		return;
	g = READ_ONCE(gb_rdma_fault_poison) ?
	    kmalloc(sizeof(*g), GFP_KERNEL) : NULL;
	if (!g) {
		kfree(obj);
		return;
	}
	memset(obj, POISON_FREE, size);
	g->obj = obj;
	g->size = size;
	spin_lock(&gb_rdma_graves_lock);
	list_add(&g->node, &gb_rdma_graves);
	spin_unlock(&gb_rdma_graves_lock);
}

/* At unload: a grave whose poison changed was written after its free. */
static void gb_rdma_graves_free(void)
{
	struct gb_rdma_grave *g, *tmp;

	list_for_each_entry_safe(g, tmp, &gb_rdma_graves, node) {
		list_del(&g->node);
		if (memchr_inv(g->obj, POISON_FREE, g->size))
			pr_err("freed state (%zu bytes) written after its free\n",
			       g->size);
		kfree(g->obj);
		kfree(g);
	}
}

/* The device's CQ size limit (or the fault knob's, if lower). */
u32 gb_rdma_max_cqe(struct ib_device *ibdev)
{
	u32 knob = READ_ONCE(gb_rdma_fault_max_cqe);
	u32 max = ibdev->attrs.max_cqe;

	return knob ? min(knob, max) : max;
}

/**
 * gb_rdma_dev_get() - the device state of a connect request; lock held
 * @ibdev: the request's device
 *
 * The state exists from our ib_client's .add to its .remove, and only
 * then: rdma_cm can still deliver connect requests for a device whose
 * .remove has run (wildcard listeners, the rebind), and creating state
 * (a PD) for them would leak it. The PD is allocated on first use.
 *
 * Return: the state, or ERR_PTR(-ENODEV) (no state or going away) or the
 * error of ib_alloc_pd().
 */
struct gb_rdma_dev *gb_rdma_dev_get(struct ib_device *ibdev)
{
	struct gb_rdma_dev *dev;
	struct ib_pd *pd;

	list_for_each_entry(dev, &gb_rdma_devs, node) {
		if (dev->ibdev != ibdev)
			continue;
		if (dev->dead)
			return ERR_PTR(-ENODEV);
		if (dev->pd)
			return dev;
		pd = ib_alloc_pd(ibdev, 0);
		if (IS_ERR(pd))
			return ERR_CAST(pd);
		dev->pd = pd;
		pr_info("using device %s\n", dev_name(&ibdev->dev));
		gb_event_device(dev_name(&ibdev->dev), true);
		return dev;
	}
	return ERR_PTR(-ENODEV);
}

static u32 gb_rdma_get_max_conns(void)
{
	return READ_ONCE(gb_rdma_max_conns);
}

static void gb_rdma_set_max_conns(u32 max)
{
	WRITE_ONCE(gb_rdma_max_conns, max);
}

static void gb_rdma_listen_rebind(struct gb_rdma_listener *lis);

/* Listener lost its device: forget the id (rdma_cm destroys it) and retry. */
static int gb_rdma_listener_event(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct gb_rdma_listener *lis = id->context;
	int ret = 0;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL &&
	    ev->event != RDMA_CM_EVENT_ADDR_CHANGE)
		return 0;
	mutex_lock(&gb_rdma_lock);
	if (lis->cm_id == id && ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		lis->cm_id = NULL;
		ret = 1;
		if (!lis->dying)
			gb_rdma_listen_rebind(lis);
	}
	mutex_unlock(&gb_rdma_lock);
	return ret;
}

static int gb_rdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum gb_rdma_kind *kind = id->context;
	struct gb_rdma_conn *conn;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return gb_rdma_connect_request(id, ev);
	if (*kind == GB_KIND_LISTENER)
		return gb_rdma_listener_event(id, ev);

	conn = id->context;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		pr_debug("conn %llu established\n", conn->id);
		trace_gb_conn(true, conn->id, GB_TRACE_CONN_UP);
		gb_rdma_kick(conn);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		gb_rdma_conn_close(conn);
		break;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* listeners */

static struct rdma_cm_id *gb_rdma_listen(struct gb_rdma_listener *lis)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, gb_rdma_cm_handler, lis, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	if (lis->cfg.addr.ss_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto err;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)&lis->cfg.addr);
	if (ret)
		goto err;
	ret = rdma_listen(id, GB_RDMA_BACKLOG);
	if (ret)
		goto err;
	return id;
err:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

static void gb_rdma_listen_rebind(struct gb_rdma_listener *lis)
{
	queue_delayed_work(gb_rdma_wq, &lis->rebind,
			   msecs_to_jiffies(GB_RDMA_REBIND_MS));
}

static void gb_rdma_rebind_work(struct work_struct *work)
{
	struct gb_rdma_listener *lis = container_of(to_delayed_work(work),
						    struct gb_rdma_listener,
						    rebind);
	struct rdma_cm_id *id = gb_rdma_listen(lis);

	mutex_lock(&gb_rdma_lock);
	if (lis->dying || lis->cm_id) {
		mutex_unlock(&gb_rdma_lock);
		if (!IS_ERR(id))
			rdma_destroy_id(id);
		return;
	}
	if (IS_ERR(id)) {
		gb_rdma_listen_rebind(lis);
	} else {
		lis->cm_id = id;
		pr_info("listener %u: listening on %pISpc\n", lis->id,
			&lis->cfg.addr);
	}
	mutex_unlock(&gb_rdma_lock);
}

static int gb_rdma_check_cfg(struct gb_listener_config *c,
			     struct netlink_ext_ack *extack)
{
	if (c->addr.ss_family != AF_INET && c->addr.ss_family != AF_INET6) {
		NL_SET_ERR_MSG(extack, "RDMA listener needs an IPv4 or IPv6 address");
		return -EAFNOSUPPORT;
	}
	if (!c->window)
		c->window = GB_RDMA_DEF_WINDOW;
	if (!c->windows)
		c->windows = GB_RDMA_DEF_WINDOWS;
	if (!c->credits)
		c->credits = GB_RDMA_DEF_CREDITS;
	if (!c->max_conns)
		c->max_conns = GB_RDMA_DEF_MAX_CONNS;
	if (!c->max_peer_conns)
		c->max_peer_conns = GB_RDMA_DEF_PEER_CONNS;
	/*
	 * An RDMA connection holds a QP, rings and possibly windows of
	 * pinned pages, and a peer that vanished holding nothing is only
	 * noticed by this timeout: there is no "never" (604800 s is the max).
	 */
	if (!c->idle_timeout)
		c->idle_timeout = GB_RDMA_DEF_IDLE;
	if (c->window < GB_RDMA_WINDOW_MIN || c->window > GB_RDMA_WINDOW_MAX ||
	    c->window % 4096) {
		NL_SET_ERR_MSG(extack,
			       "RDMA window must be a multiple of 4 KiB in [4 KiB, 16 MiB]");
		return -EINVAL;
	}
	if (c->windows > GB_RDMA_MAX_WINDOWS) {
		NL_SET_ERR_MSG(extack, "at most 64 RDMA windows");
		return -EINVAL;
	}
	if (c->credits < GB_RDMA_CREDITS_MIN || c->credits > GB_RDMA_GRANT_MAX) {
		NL_SET_ERR_MSG(extack, "RDMA credits must be in [4, 128]");
		return -EINVAL;
	}
	return 0;
}

static int gb_rdma_lis_add(const struct gb_listener_config *cfg,
			   struct netlink_ext_ack *extack)
{
	struct gb_rdma_listener *lis, *l;
	struct rdma_cm_id *id;
	int ret;

	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return -ENOMEM;
	lis->kind = GB_KIND_LISTENER;
	lis->cfg = *cfg;
	lis->cfg.kind = GB_LISTENER_RDMA;
	INIT_DELAYED_WORK(&lis->rebind, gb_rdma_rebind_work);
	ret = gb_rdma_check_cfg(&lis->cfg, extack);
	if (ret)
		goto free;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(l, &gb_rdma_listeners, node) {
		if (gb_listener_addr_equal(&l->cfg.addr, &lis->cfg.addr)) {
			mutex_unlock(&gb_rdma_lock);
			NL_SET_ERR_MSG(extack, "RDMA listener exists on that address");
			ret = -EEXIST;
			goto free;
		}
	}
	lis->id = ++gb_rdma_next_lis_id;
	list_add_tail(&lis->node, &gb_rdma_listeners);
	mutex_unlock(&gb_rdma_lock);

	id = gb_rdma_listen(lis);
	mutex_lock(&gb_rdma_lock);
	if (IS_ERR(id)) {
		list_del(&lis->node);
		mutex_unlock(&gb_rdma_lock);
		ret = PTR_ERR(id);
		NL_SET_ERR_MSG(extack,
			       "cannot bind RDMA listener (no RDMA device on that address?)");
		goto free;
	}
	lis->cm_id = id;
	mutex_unlock(&gb_rdma_lock);
	pr_info("listener %u: listening on %pISpc\n", lis->id, &lis->cfg.addr);
	gb_event_listener(GB_LISTENER_RDMA, lis->id, &lis->cfg.addr, true);
	return 0;
free:
	kfree(lis);
	return ret;
}

/**
 * gb_rdma_lis_stop() - stop a listener (already unlinked and marked dying)
 * @lis: the listener
 *
 * Destroys the listening cm_id, which waits for connect handlers running
 * on it, so no connection can be added to @lis afterwards; then closes its
 * connections without waiting for them (listener delete runs under
 * genl_mutex). @lis is freed here if nothing refers to it any more, else
 * by the release of its last connection (gb_rdma_slot_put()) or by a
 * device removal done destroying its cm_id (gb_rdma_lis_unhold()).
 */
static void gb_rdma_lis_stop(struct gb_rdma_listener *lis)
{
	struct rdma_cm_id *id;
	struct gb_rdma_conn *conn;
	bool free_lis;

	cancel_delayed_work_sync(&lis->rebind);
	mutex_lock(&gb_rdma_lock);
	id = lis->cm_id;
	lis->cm_id = NULL;
	mutex_unlock(&gb_rdma_lock);
	if (id)
		rdma_destroy_id(id);
	pr_info("listener %u: stopped\n", lis->id);
	gb_event_listener(GB_LISTENER_RDMA, lis->id, &lis->cfg.addr, false);

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node)
		if (conn->lis == lis)
			gb_rdma_conn_close(conn);
	lis->stopped = true;
	free_lis = gb_rdma_lis_unused(lis);
	mutex_unlock(&gb_rdma_lock);
	if (free_lis)
		gb_rdma_free_state(lis, sizeof(*lis));
}

static int gb_rdma_lis_del(const struct sockaddr_storage *addr,
			   struct netlink_ext_ack *extack)
{
	struct gb_rdma_listener *lis, *found = NULL;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(lis, &gb_rdma_listeners, node) {
		if (gb_listener_addr_equal(&lis->cfg.addr, addr)) {
			found = lis;
			break;
		}
	}
	if (found) {
		found->dying = true;
		list_del(&found->node);
	}
	mutex_unlock(&gb_rdma_lock);
	if (!found) {
		NL_SET_ERR_MSG(extack, "no RDMA listener on that address");
		return -ENOENT;
	}
	gb_rdma_lis_stop(found);
	return 0;
}

static int gb_rdma_lis_walk(u32 *cursor,
			    int (*fn)(const struct gb_listener_info *info,
				      void *arg),
			    void *arg)
{
	struct gb_listener_info info;
	struct gb_rdma_listener *lis;
	int ret = 0;

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(lis, &gb_rdma_listeners, node) {
		if (lis->id <= *cursor)
			continue;
		memset(&info, 0, sizeof(info));
		info.cfg = lis->cfg;
		info.id = lis->id;
		info.conns = lis->nconns;
		info.conns_total = lis->conns_total;
		info.refused = lis->refused;
		ret = fn(&info, arg);
		if (ret)
			break;
		*cursor = lis->id;
	}
	mutex_unlock(&gb_rdma_lock);
	return ret;
}

static const struct gb_listener_ops gb_rdma_listener_ops = {
	.add = gb_rdma_lis_add,
	.del = gb_rdma_lis_del,
	.walk = gb_rdma_lis_walk,
	.conn_walk = gb_rdma_nl_walk,
	.stats = gb_rdma_xport_stats,
	.get_max_conns = gb_rdma_get_max_conns,
	.set_max_conns = gb_rdma_set_max_conns,
	.get_lease_ms = gb_rdma_get_lease_ms,
	.set_lease_ms = gb_rdma_set_lease_ms,
};

/* ---------------------------------------------------------------------- */
/* device removal */

/* ib_client .add: a device appeared (or existed at load); no PD yet. */
static int gb_rdma_add_one(struct ib_device *ibdev)
{
	struct gb_rdma_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	mutex_lock(&gb_rdma_lock);
	list_add_tail(&dev->node, &gb_rdma_devs);
	mutex_unlock(&gb_rdma_lock);
	return 0;
}

/* Drop a hold of gb_rdma_remove_one(); frees a listener stopped meanwhile. */
static void gb_rdma_lis_unhold(struct gb_rdma_listener *lis)
{
	bool free_lis;

	mutex_lock(&gb_rdma_lock);
	lis->holds--;
	free_lis = gb_rdma_lis_unused(lis);
	mutex_unlock(&gb_rdma_lock);
	if (free_lis)
		gb_rdma_free_state(lis, sizeof(*lis));
}

/**
 * gb_rdma_remove_one() - ib_client .remove: a device is going away
 * @ibdev: the device
 * @data:  unused client data
 *
 * Runs before rdma_cm's own removal (clients are removed in LIFO order), so
 * the connections' cm_ids are still valid: close every connection on the
 * device, wait until all are freed, move listeners bound to the device to
 * the rebind retry, then free the PD and the state. Connect requests
 * rdma_cm delivers for the device afterwards find no state and are
 * refused (gb_rdma_dev_get()).
 */
static void gb_rdma_remove_one(struct ib_device *ibdev, void *data)
{
	struct gb_rdma_listener *lis;
	struct gb_rdma_conn *conn;
	struct gb_rdma_dev *dev = NULL, *d;
	struct gb_rdma_listener *lises[8];
	struct rdma_cm_id *ids[8];
	int n, i;

	/*
	 * Listeners bound to an address on this device. Each id destroyed
	 * here waits for its running connect handlers, one after the other,
	 * and until then can still run new ones with the listener as their
	 * context: a hold keeps the listener alive for them even if it is
	 * deleted meanwhile (which no longer sees the id to wait for).
	 */
	do {
		n = 0;
		mutex_lock(&gb_rdma_lock);
		list_for_each_entry(lis, &gb_rdma_listeners, node) {
			if (lis->cm_id && lis->cm_id->device == ibdev &&
			    n < ARRAY_SIZE(ids)) {
				lises[n] = lis;
				ids[n++] = lis->cm_id;
				lis->cm_id = NULL;
				lis->holds++;
				gb_rdma_listen_rebind(lis);
			}
		}
		mutex_unlock(&gb_rdma_lock);
		for (i = 0; i < n; i++) {
			rdma_destroy_id(ids[i]);
			gb_rdma_lis_unhold(lises[i]);
		}
	} while (n == ARRAY_SIZE(ids));

	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(d, &gb_rdma_devs, node) {
		if (d->ibdev == ibdev) {
			dev = d;
			break;
		}
	}
	if (!dev) {
		mutex_unlock(&gb_rdma_lock);
		return;
	}
	dev->dead = true;
	list_for_each_entry(conn, &gb_rdma_conns, node)
		if (conn->dev == dev)
			gb_rdma_conn_close(conn);
	mutex_unlock(&gb_rdma_lock);
	wait_event(gb_rdma_waitq, READ_ONCE(dev->nconns) == 0);

	mutex_lock(&gb_rdma_lock);
	list_del(&dev->node);
	mutex_unlock(&gb_rdma_lock);
	if (dev->pd) {
		ib_dealloc_pd(dev->pd);
		pr_info("released device %s\n", dev_name(&ibdev->dev));
		gb_event_device(dev_name(&ibdev->dev), false);
	}
	gb_rdma_free_state(dev, sizeof(*dev));
	gb_rdma_fault_delay(&gb_rdma_fault_remove_ms);
}

static struct ib_client gb_rdma_ib_client = {
	.name = "goblin",
	.add = gb_rdma_add_one,
	.remove = gb_rdma_remove_one,
};

/* ---------------------------------------------------------------------- */
/* init / exit */

static void gb_rdma_param_listener(void)
{
	struct gb_listener_config cfg = { .kind = GB_LISTENER_RDMA };
	struct gb_rdma_listener *lis;
	int ret;

	if (!gb_rdma_param || !*gb_rdma_param)
		return;
	ret = gb_listener_parse_addr(gb_rdma_param, &cfg.addr);
	if (ret) {
		pr_err("bad rdma= parameter \"%s\"\n", gb_rdma_param);
		return;
	}
	ret = gb_rdma_lis_add(&cfg, NULL);
	if (!ret || ret == -EEXIST)
		return;
	/* Device not there yet: keep retrying in the background. */
	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return;
	lis->kind = GB_KIND_LISTENER;
	lis->cfg = cfg;
	INIT_DELAYED_WORK(&lis->rebind, gb_rdma_rebind_work);
	if (gb_rdma_check_cfg(&lis->cfg, NULL)) {
		kfree(lis);
		return;
	}
	pr_warn("cannot listen on %s yet (%d), retrying\n", gb_rdma_param, ret);
	mutex_lock(&gb_rdma_lock);
	lis->id = ++gb_rdma_next_lis_id;
	list_add_tail(&lis->node, &gb_rdma_listeners);
	gb_rdma_listen_rebind(lis);
	mutex_unlock(&gb_rdma_lock);
}

int gb_rdma_init(void)
{
	int ret;

	/*
	 * Not WQ_MEM_RECLAIM: no reclaim waits for this work, and it
	 * allocates with GFP_KERNEL and reads tails through the page cache,
	 * which a rescuer thread could not make progress with anyway.
	 */
	gb_rdma_wq = alloc_workqueue("goblin_rdma", WQ_UNBOUND, 0);
	if (!gb_rdma_wq)
		return -ENOMEM;
	gb_rdma_io_wq = alloc_workqueue("goblin_rdma_io", WQ_HIGHPRI, 0);
	if (!gb_rdma_io_wq) {
		destroy_workqueue(gb_rdma_wq);
		return -ENOMEM;
	}
	ret = ib_register_client(&gb_rdma_ib_client);
	if (ret) {
		destroy_workqueue(gb_rdma_io_wq);
		destroy_workqueue(gb_rdma_wq);
		return ret;
	}
	gb_transport_register(GB_LISTENER_RDMA, &gb_rdma_listener_ops);
	gb_rdma_dbg_init();
	gb_rdma_param_listener();
	return 0;
}

void gb_rdma_exit(void)
{
	struct gb_rdma_listener *lis;
	struct gb_rdma_conn *conn;

	gb_transport_unregister(GB_LISTENER_RDMA);
	gb_rdma_dbg_exit();
	for (;;) {
		mutex_lock(&gb_rdma_lock);
		lis = list_first_entry_or_null(&gb_rdma_listeners,
					       struct gb_rdma_listener, node);
		if (lis) {
			lis->dying = true;
			list_del(&lis->node);
		}
		mutex_unlock(&gb_rdma_lock);
		if (!lis)
			break;
		gb_rdma_lis_stop(lis);
	}
	mutex_lock(&gb_rdma_lock);
	list_for_each_entry(conn, &gb_rdma_conns, node)
		gb_rdma_conn_close(conn);
	mutex_unlock(&gb_rdma_lock);
	wait_event(gb_rdma_waitq, READ_ONCE(gb_rdma_nconns) == 0);
	ib_unregister_client(&gb_rdma_ib_client);
	destroy_workqueue(gb_rdma_io_wq);
	destroy_workqueue(gb_rdma_wq);
	gb_rdma_graves_free();
}
