// SPDX-License-Identifier: GPL-2.0
/*
 * libgoblin's caller-allocated structures across header versions (the ABI
 * rule of <goblin/client.h>): 0.3 appended gb_connect_opts.one_sided and
 * reserved[], so programs built with the 0.1.0/0.2.0 headers pass the
 * older, smaller struct gb_connect_opts, and struct gb_fleet_server (which
 * embeds it) with weight and ring_name at other offsets. gb_connect_sz()
 * takes both sizes; the fleet calls taking struct gb_fleet_server have a
 * LIBGOBLIN_1 version for the old layout (what old programs are bound to,
 * called here through .symver references) and a LIBGOBLIN_1.2 one for the
 * current. one_sided must be 0 or 1, reserved[] 0. Links the shipped
 * libgoblin.a.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <goblin/client.h>
#include <goblin/fleet.h>

#include "unit_tap.h"
#include "opts_abi_old.h"
#include "../../tools/include/gb_compiler.h"

/* The layouts of the 0.2.0 headers, verbatim. */
struct old_connect_opts {
	enum gb_transport transport;
	const char *host;
	uint16_t port;
	const char *bind_host;
	uint32_t window_size;
	uint32_t windows;
	uint32_t credits;
	uint32_t set_max;
	int timeout_ms;
	int spin_us;
};

struct old_fleet_server {
	struct old_connect_opts conn;
	uint32_t weight;
	const char *ring_name;
};

/* A TCP port nothing listens on: a connect fails with GB_ECONNECT. */
#define DEAD_PORT 1

static void t_layouts(void)
{
	CHECK(offsetof(struct gb_connect_opts, one_sided) ==
	      sizeof(struct old_connect_opts));
	CHECK(sizeof(struct gb_connect_opts) > sizeof(struct old_connect_opts));
	CHECK(sizeof(struct gb_fleet_server) > sizeof(struct old_fleet_server));
	/* no tail padding: a later option in a reserved slot is seen */
	CHECK(sizeof(struct gb_connect_opts) ==
	      offsetof(struct gb_connect_opts, reserved) +
	      sizeof(((struct gb_connect_opts *)0)->reserved));
	CHECK(offsetof(struct gb_fleet_server, weight) ==
	      sizeof(struct gb_connect_opts));
}

static void t_old_connect_opts(void)
{
	struct old_connect_opts o;
	struct gb_conn *c = NULL;

	memset(&o, 0xa5, sizeof(o));
	gb_connect_opts_init_sz((struct gb_connect_opts *)&o, sizeof(o));
	CHECK(o.transport == GB_TRANSPORT_TCP);
	if (o.transport != GB_TRANSPORT_TCP)
		return;		/* left alone: its pointers are garbage */
	CHECK(o.host && !strcmp(o.host, "127.0.0.1"));
	CHECK(o.port == 11211);
	CHECK(o.timeout_ms == 0 && o.spin_us == 0 && !o.bind_host);
	o.port = DEAD_PORT;
	o.timeout_ms = 2000;
	/* accepted (a refused connect), not GB_EINVAL for its size */
	CHECK(gb_connect_sz((struct gb_connect_opts *)&o, sizeof(o), &c) ==
	      -GB_ECONNECT);
	CHECK(!c);
}

static void t_one_sided(void)
{
	struct gb_connect_opts o;
	struct gb_conn *c = NULL;

	gb_connect_opts_init(&o);
	CHECK(o.one_sided == 0);
	o.port = DEAD_PORT;
	o.timeout_ms = 2000;
	o.one_sided = 2;
	CHECK(gb_connect(&o, &c) == -GB_EINVAL);
	o.one_sided = -1;
	CHECK(gb_connect(&o, &c) == -GB_EINVAL);
	o.one_sided = 1;	/* TCP: accepted and ignored */
	CHECK(gb_connect(&o, &c) == -GB_ECONNECT);
	CHECK(!c);
}

static void t_reserved(void)
{
	size_t i, nr = sizeof(((struct gb_connect_opts *)0)->reserved) /
		       sizeof(uint32_t);
	struct gb_connect_opts o;
	struct gb_conn *c = NULL;

	memset(&o, 0xa5, sizeof(o));
	gb_connect_opts_init(&o);
	for (i = 0; i < nr; i++)
		CHECK(o.reserved[i] == 0);
	o.port = DEAD_PORT;
	o.timeout_ms = 2000;
	for (i = 0; i < nr; i++) {
		o.reserved[i] = 1;
		CHECK(gb_connect(&o, &c) == -GB_ENOTSUP);
		CHECK(!c && strstr(gb_errmsg(NULL), "does not know"));
		o.reserved[i] = 0;
	}
	CHECK(gb_connect(&o, &c) == -GB_ECONNECT);
}

static void t_old_fleet_server(void)
{
	struct old_fleet_server s, *arr = NULL;
	struct gb_fleet *f = NULL;
	size_t n = 0;

	memset(&s, 0xa5, sizeof(s));
	old_server_init_sz(&s, sizeof(s));
	CHECK(s.weight == 1);
	if (s.weight != 1)
		return;		/* left alone: its pointers are garbage */
	CHECK(!s.ring_name);
	CHECK(s.conn.port == 11211 && s.conn.host &&
	      !strcmp(s.conn.host, "127.0.0.1"));

	CHECK(!old_parse_sz("10.9.0.1:7/3,rdma://[::1]:9=r2", (void **)&arr,
			    sizeof(s), &n));
	CHECK(n == 2 && arr);
	if (n != 2 || !arr)
		return;
	CHECK(arr[0].conn.host && !strcmp(arr[0].conn.host, "10.9.0.1"));
	CHECK(arr[0].conn.port == 7 && arr[0].weight == 3 && !arr[0].ring_name);
	CHECK(arr[0].conn.transport == GB_TRANSPORT_TCP);
	CHECK(arr[1].conn.host && !strcmp(arr[1].conn.host, "::1"));
	CHECK(arr[1].conn.port == 9 && arr[1].weight == 1);
	CHECK(arr[1].conn.transport == GB_TRANSPORT_RDMA);
	CHECK(arr[1].ring_name && !strcmp(arr[1].ring_name, "r2"));

	/* the old array, walked with its element size */
	CHECK(!old_create_sz(NULL, 0, arr, sizeof(*arr), n, &f));
	CHECK(f && gb_fleet_count(f) == 2);
	if (f) {
		struct gb_fleet_state st;

		CHECK(!gb_fleet_state(f, 0, &st) && st.weight == 3);
		CHECK(!gb_fleet_state(f, 1, &st) && st.weight == 1 &&
		      st.ring_name && !strcmp(st.ring_name, "r2"));
	}
	gb_fleet_destroy(f);
	free(arr);
}

/* The current layout, through the default (LIBGOBLIN_1.2) versions. */
static void t_fleet_server(void)
{
	struct gb_fleet_server s[2], *arr = NULL;
	struct old_fleet_server old;
	struct gb_fleet *f = NULL;
	size_t n = 0;

	memset(s, 0xa5, sizeof(s));
	gb_fleet_server_init(&s[0]);
	gb_fleet_server_init(&s[1]);
	CHECK(s[0].weight == 1 && !s[0].ring_name && s[0].conn.one_sided == 0);
	if (s[0].weight != 1)
		return;
	s[0].conn.host = "10.9.0.1";
	s[0].weight = 3;
	s[1].conn.host = "10.9.0.2";
	s[1].conn.one_sided = 1;	/* accepted, not used by a fleet */
	CHECK(!gb_fleet_create(NULL, s, 2, &f));
	if (f) {
		struct gb_fleet_state st;

		CHECK(!gb_fleet_state(f, 0, &st) && st.weight == 3 &&
		      !strcmp(st.ring_name, "10.9.0.1"));
		CHECK(!gb_fleet_state(f, 1, &st) && st.weight == 1);
	}
	gb_fleet_destroy(f);
	f = NULL;

	s[1].conn.one_sided = 2;
	CHECK(gb_fleet_create(NULL, s, 2, &f) == -GB_EINVAL && !f);
	CHECK(strstr(gb_fleet_errmsg(NULL), "server 1: one_sided 2"));
	s[1].conn.one_sided = 0;
	s[1].conn.reserved[4] = 7;
	CHECK(gb_fleet_create(NULL, s, 2, &f) == -GB_ENOTSUP && !f);
	CHECK(strstr(gb_fleet_errmsg(NULL), "server 1: conn.reserved[4]"));
	s[1].conn.reserved[4] = 0;

	/* the current versions do not take the old layout */
	CHECK(gb_fleet_create_sz(NULL, 0, s, sizeof(old), 1, &f) ==
	      -GB_EINVAL && !f);
	memset(&old, 0xa5, sizeof(old));
	gb_fleet_server_init_sz((struct gb_fleet_server *)&old, sizeof(old));
	CHECK(old.weight == 0xa5a5a5a5);	/* left alone */
	CHECK(gb_fleet_parse_sz("h1", &arr, sizeof(old), &n) == -GB_EINVAL &&
	      !arr);

	CHECK(!gb_fleet_parse("h1/2,rdma://h2:9=r2", &arr, &n));
	CHECK(n == 2 && arr);
	if (n == 2 && arr) {
		CHECK(!strcmp(arr[0].conn.host, "h1") && arr[0].weight == 2 &&
		      arr[0].conn.port == 11211 && !arr[0].ring_name);
		CHECK(!strcmp(arr[1].conn.host, "h2") && arr[1].weight == 1 &&
		      arr[1].conn.port == 9 && !strcmp(arr[1].ring_name, "r2") &&
		      arr[1].conn.transport == GB_TRANSPORT_RDMA &&
		      arr[1].conn.one_sided == 0);
	}
	free(arr);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "struct gb_connect_opts: 0.3 appended one_sided", t_layouts },
		{ "gb_connect_opts of 0.2.0: init and connect", t_old_connect_opts },
		{ "one_sided: 0 or 1, else GB_EINVAL", t_one_sided },
		{ "gb_connect_opts.reserved[]: 0 from init, else GB_ENOTSUP", t_reserved },
		{ "gb_fleet_server of 0.2.0 (LIBGOBLIN_1): init, parse, create",
		  t_old_fleet_server },
		{ "gb_fleet_server (LIBGOBLIN_1.2): init, create, checks, parse",
		  t_fleet_server },
	};

	return unit_run(tests, ARRAY_SIZE(tests));
}
