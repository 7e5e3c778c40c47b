// SPDX-License-Identifier: GPL-2.0
/*
 * libgoblin's caller-allocated structures across header versions (the ABI
 * rule of <goblin/client.h>): 0.3 appended gb_connect_opts.one_sided, so
 * programs built with the 0.1.0/0.2.0 headers pass the older, smaller
 * struct gb_connect_opts, and struct gb_fleet_server (which embeds it) with
 * weight and ring_name at other offsets. The library must take both
 * layouts; and one_sided must be 0 or 1. Links the shipped libgoblin.a.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <goblin/client.h>
#include <goblin/fleet.h>

#include "unit_tap.h"
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

static void t_old_fleet_server(void)
{
	struct old_fleet_server s, *arr = NULL;
	struct gb_fleet *f = NULL;
	size_t n = 0;

	memset(&s, 0xa5, sizeof(s));
	gb_fleet_server_init_sz((struct gb_fleet_server *)&s, sizeof(s));
	CHECK(s.weight == 1);
	if (s.weight != 1)
		return;		/* left alone: its pointers are garbage */
	CHECK(!s.ring_name);
	CHECK(s.conn.port == 11211 && s.conn.host &&
	      !strcmp(s.conn.host, "127.0.0.1"));

	CHECK(!gb_fleet_parse_sz("10.9.0.1:7/3,rdma://[::1]:9=r2",
				 (struct gb_fleet_server **)&arr, sizeof(s),
				 &n));
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
	CHECK(!gb_fleet_create_sz(NULL, 0, (struct gb_fleet_server *)arr,
				  sizeof(*arr), n, &f));
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

int main(void)
{
	static const struct unit_test tests[] = {
		{ "struct gb_connect_opts: 0.3 appended one_sided", t_layouts },
		{ "gb_connect_opts of 0.2.0: init and connect", t_old_connect_opts },
		{ "one_sided: 0 or 1, else GB_EINVAL", t_one_sided },
		{ "gb_fleet_server of 0.2.0: init, parse, create", t_old_fleet_server },
	};

	return unit_run(tests, ARRAY_SIZE(tests));
}
