// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for libgoblin's ketama placement (lib/src/ketama.c,
 * lib/src/fleet.c) against libmemcached itself: for several weighted sets
 * of 3 to 5 servers, 10,000 keys must map to the same server index in
 * gb_fleet_server_for_key() as in libmemcached's memcached_generate_hash()
 * with MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED. Also the key hash against
 * libhashkit's MD5, the ring-name rules, and the server list parser.
 *
 * Nothing connects: fleets connect lazily and libmemcached only resolves
 * on I/O. Output is TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmemcached/memcached.h>

#include <goblin/fleet.h>

#include "unit_tap.h"
#include "../../lib/src/ketama.h"		/* gb_ketama_hash() */
#include "../../tools/include/gb_compiler.h"

#define NKEYS 10000

struct srv {
	const char *host;
	unsigned int port;
	unsigned int weight;
};

static char keys[NKEYS][GB_KEY_MAX + 1];
static size_t klens[NKEYS];

/* Keys of assorted shapes and lengths 1..250, deterministic. */
static void make_keys(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i, j, len;

	for (i = 0; i < NKEYS; i++) {
		switch (i % 4) {
		case 0:
			len = (size_t)snprintf(keys[i], sizeof(keys[i]),
					       "key:%zu", i);
			break;
		case 1:
			len = (size_t)snprintf(keys[i], sizeof(keys[i]),
					       "user/%zu/profile/avatar.jpg",
					       i * 7919);
			break;
		default:
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			len = 1 + x % GB_KEY_MAX;
			for (j = 0; j < len; j++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				keys[i][j] = (char)('!' + x % 94);
			}
			keys[i][len] = '\0';
		}
		klens[i] = len;
	}
}

static memcached_st *mc_new(const struct srv *s, size_t n)
{
	memcached_st *mc = memcached_create(NULL);
	size_t i;

	if (!mc)
		abort();
	if (memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) !=
	    MEMCACHED_SUCCESS)
		abort();
	for (i = 0; i < n; i++)
		if (memcached_server_add_with_weight(mc, s[i].host,
						     (in_port_t)s[i].port,
						     s[i].weight) !=
		    MEMCACHED_SUCCESS)
			abort();
	return mc;
}

/*
 * A fleet over @s; @rdma_port, when nonzero, makes every member an RDMA
 * server on that port that carries the ring name of its memcache address.
 */
static struct gb_fleet *fleet_new(const struct srv *s, size_t n,
				  uint16_t rdma_port)
{
	struct gb_fleet_server fs[32];
	char names[32][64];
	struct gb_fleet *f = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		gb_fleet_server_init(&fs[i]);
		fs[i].conn.host = s[i].host;
		fs[i].conn.port = (uint16_t)s[i].port;
		fs[i].weight = s[i].weight;
		if (!rdma_port)
			continue;
		if (s[i].port == GB_MEMCACHE_PORT)
			snprintf(names[i], sizeof(names[i]), "%s", s[i].host);
		else
			snprintf(names[i], sizeof(names[i]), "%s:%u",
				 s[i].host, s[i].port);
		fs[i].conn.transport = GB_TRANSPORT_RDMA;
		fs[i].conn.port = rdma_port;
		fs[i].ring_name = names[i];
	}
	if (gb_fleet_create(NULL, fs, n, &f)) {
		printf("#   gb_fleet_create: %s\n", gb_fleet_errmsg(NULL));
		return NULL;
	}
	return f;
}

/* Keys whose server differs between libmemcached and libgoblin. */
static size_t mismatches(const struct srv *s, size_t n, uint16_t rdma_port)
{
	memcached_st *mc = mc_new(s, n);
	struct gb_fleet *f = fleet_new(s, n, rdma_port);
	size_t i, bad = 0, per[32] = { 0 };
	uint32_t want;

	if (!f) {
		memcached_free(mc);
		return NKEYS;
	}
	for (i = 0; i < NKEYS; i++) {
		want = memcached_generate_hash(mc, keys[i], klens[i]);
		if (want < n)
			per[want]++;
		if (gb_fleet_server_for_key(f, keys[i], klens[i]) != want) {
			if (bad < 3)
				printf("#   key %zu: libmemcached %u, libgoblin %zu\n",
				       i, want,
				       gb_fleet_server_for_key(f, keys[i],
							       klens[i]));
			bad++;
		}
	}
	printf("#   %zu servers, keys per server:", n);
	for (i = 0; i < n && i < 5; i++)
		printf(" %zu", per[i]);
	if (n > 5)
		printf(" ...");
	printf(", %zu differ\n", bad);
	gb_fleet_destroy(f);
	memcached_free(mc);
	return bad;
}

static const struct srv equal3[] = {
	{ "10.0.0.1", 11211, 1 },
	{ "10.0.0.2", 11211, 1 },
	{ "10.0.0.3", 11211, 1 },
};

static const struct srv weighted4[] = {
	{ "10.0.0.1", 11211, 1 },
	{ "10.0.0.2", 11212, 2 },
	{ "cache-c.example", 11211, 3 },
	{ "10.0.0.4", 22122, 4 },
};

static const struct srv weighted5[] = {
	{ "127.0.0.1", 11211, 5 },
	{ "127.0.0.1", 11311, 1 },
	{ "127.0.0.1", 11312, 1 },
	{ "memcache-4.internal", 11211, 10 },
	{ "192.168.77.5", 40000, 3 },
};

static const struct srv skewed5[] = {
	{ "a", 11211, 100 },
	{ "b", 1, 1 },
	{ "c", 65535, 7 },
	{ "d", 11211, 33 },
	{ "e", 11213, 2 },
};

static const struct srv equal5[] = {
	{ "10.1.0.1", 11211, 1 },
	{ "10.1.0.2", 11211, 1 },
	{ "10.1.0.3", 11211, 1 },
	{ "10.1.0.4", 11211, 1 },
	{ "10.1.0.5", 11211, 1 },
};

static void test_hash(void)
{
	size_t i, bad = 0;

	for (i = 0; i < NKEYS; i++)
		if (gb_ketama_hash(keys[i], klens[i]) !=
		    memcached_generate_hash_value(keys[i], klens[i],
						  MEMCACHED_HASH_MD5))
			bad++;
	CHECK(bad == 0);
}

static void test_equal3(void)
{
	CHECK(mismatches(equal3, 3, 0) == 0);
}

static void test_weighted4(void)
{
	CHECK(mismatches(weighted4, 4, 0) == 0);
}

static void test_weighted5(void)
{
	CHECK(mismatches(weighted5, 5, 0) == 0);
}

static void test_skewed5(void)
{
	CHECK(mismatches(skewed5, 5, 0) == 0);
}

static void test_equal5(void)
{
	CHECK(mismatches(equal5, 5, 0) == 0);
}

/*
 * 25 equal servers: single-precision rounding gives each 156 points, not
 * 160; libmemcached rounds the same way.
 */
static void test_equal25(void)
{
	static char hosts[25][16];
	struct srv s[25];
	struct gb_fleet *f;
	struct gb_fleet_state st;
	size_t i;

	for (i = 0; i < 25; i++) {
		snprintf(hosts[i], sizeof(hosts[i]), "10.2.0.%zu", i + 1);
		s[i] = (struct srv){ hosts[i], 11211, 1 };
	}
	CHECK(mismatches(s, 25, 0) == 0);
	f = fleet_new(s, 25, 0);
	CHECK(f && !gb_fleet_state(f, 7, &st) && st.points == 156);
	gb_fleet_destroy(f);
}

/* RDMA members named after their memcache listeners land alike. */
static void test_rdma_ring_names(void)
{
	CHECK(mismatches(weighted4, 4, 11311) == 0);
	CHECK(mismatches(weighted5, 5, 11311) == 0);
}

/*
 * The naming rule has teeth: naming a port-11211 server "HOST:11211" (as
 * libmemcached does not) moves keys.
 */
static void test_naming_matters(void)
{
	struct gb_fleet_server fs[3];
	memcached_st *mc = mc_new(equal3, 3);
	struct gb_fleet *f = NULL;
	const char *names[3] = { "10.0.0.1:11211", "10.0.0.2:11211",
				 "10.0.0.3:11211" };
	size_t i, bad = 0;

	for (i = 0; i < 3; i++) {
		gb_fleet_server_init(&fs[i]);
		fs[i].conn.host = equal3[i].host;
		fs[i].ring_name = names[i];
	}
	CHECK(!gb_fleet_create(NULL, fs, 3, &f));
	for (i = 0; f && i < NKEYS; i++)
		bad += gb_fleet_server_for_key(f, keys[i], klens[i]) !=
		       memcached_generate_hash(mc, keys[i], klens[i]);
	CHECK(bad > NKEYS / 4);
	gb_fleet_destroy(f);
	memcached_free(mc);
}

static void test_points(void)
{
	struct gb_fleet *f = fleet_new(equal3, 3, 0);
	struct gb_fleet_state st;
	size_t i;

	CHECK(f);
	for (i = 0; f && i < 3; i++) {
		CHECK(!gb_fleet_state(f, i, &st));
		CHECK(st.points == 160);
		CHECK(!st.connected && !st.down);
	}
	gb_fleet_destroy(f);
	f = fleet_new(weighted4, 4, 0);
	CHECK(f);
	/* 4 * floor(w/10 * 40 * 4): 64, 128, 192, 256 */
	for (i = 0; f && i < 4; i++) {
		CHECK(!gb_fleet_state(f, i, &st));
		CHECK(st.points == 64 * (i + 1));
	}
	CHECK(f && !gb_fleet_state(f, 1, &st) &&
	      !strcmp(st.ring_name, "10.0.0.2:11212") &&
	      !strcmp(st.addr, "tcp://10.0.0.2:11212"));
	CHECK(f && !gb_fleet_state(f, 2, &st) &&
	      !strcmp(st.ring_name, "cache-c.example"));
	CHECK(f && gb_fleet_state(f, 4, &st) == -GB_EINVAL);
	gb_fleet_destroy(f);
}

static void test_create_errors(void)
{
	struct gb_fleet_server fs[2];
	struct gb_fleet *f = NULL;

	gb_fleet_server_init(&fs[0]);
	gb_fleet_server_init(&fs[1]);
	/* Both default to 127.0.0.1:11211: the same ring name. */
	CHECK(gb_fleet_create(NULL, fs, 2, &f) == -GB_EINVAL);
	CHECK(strstr(gb_fleet_errmsg(NULL), "ring name"));
	fs[1].ring_name = "other";
	fs[1].weight = GB_FLEET_WEIGHT_MAX + 1;
	CHECK(gb_fleet_create(NULL, fs, 2, &f) == -GB_EINVAL);
	fs[1].weight = 0;	/* = 1 */
	fs[1].conn.host = NULL;
	CHECK(gb_fleet_create(NULL, fs, 2, &f) == -GB_EINVAL);
	fs[1].conn.host = "h";
	CHECK(gb_fleet_create(NULL, fs, 0, &f) == -GB_EINVAL);
	CHECK(gb_fleet_create(NULL, fs, 2, &f) == 0);
	CHECK(gb_fleet_count(f) == 2);
	gb_fleet_destroy(f);
}

static void test_parse(void)
{
	struct gb_fleet_server *s = NULL;
	size_t n = 0;
	const char *list =
		"10.0.0.1, rdma://10.0.0.2:11311/3=10.0.0.2 tcp://[fd00::1]:11212/2,host-b:1";

	CHECK(!gb_fleet_parse(list, &s, &n));
	CHECK(n == 4);
	if (n == 4) {
		CHECK(s[0].conn.transport == GB_TRANSPORT_TCP);
		CHECK(!strcmp(s[0].conn.host, "10.0.0.1"));
		CHECK(s[0].conn.port == 11211 && s[0].weight == 1);
		CHECK(!s[0].ring_name);
		CHECK(s[1].conn.transport == GB_TRANSPORT_RDMA);
		CHECK(!strcmp(s[1].conn.host, "10.0.0.2"));
		CHECK(s[1].conn.port == 11311 && s[1].weight == 3);
		CHECK(s[1].ring_name && !strcmp(s[1].ring_name, "10.0.0.2"));
		CHECK(!strcmp(s[2].conn.host, "fd00::1"));
		CHECK(s[2].conn.port == 11212 && s[2].weight == 2);
		CHECK(!strcmp(s[3].conn.host, "host-b"));
		CHECK(s[3].conn.port == 1);
	}
	free(s);
	s = NULL;
	CHECK(gb_fleet_parse("", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse(" , ", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h:0", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h:65536", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h:1x", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h/0", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h/65537", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("h=", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("udp://h", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("rdma://", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("[fd00::1", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse("[fd00::1]x", &s, &n) == -GB_EINVAL);
	CHECK(gb_fleet_parse(":11211", &s, &n) == -GB_EINVAL);
	CHECK(!s);
}

/* A lone server takes every key, as libmemcached sends it everything. */
static void test_single(void)
{
	struct gb_fleet *f = fleet_new(equal3, 1, 0);
	size_t i, bad = 0;

	CHECK(f);
	for (i = 0; f && i < 100; i++)
		bad += gb_fleet_server_for_key(f, keys[i], klens[i]) != 0;
	CHECK(bad == 0);
	gb_fleet_destroy(f);
}

static const struct unit_test tests[] = {
	{ "key hash equals libhashkit MD5", test_hash },
	{ "ketama: 3 servers, equal weights", test_equal3 },
	{ "ketama: 4 servers, weights 1-4, ports", test_weighted4 },
	{ "ketama: 5 servers, weights 5/1/1/10/3", test_weighted5 },
	{ "ketama: 5 servers, skewed weights", test_skewed5 },
	{ "ketama: 5 servers, equal weights", test_equal5 },
	{ "ketama: 25 equal servers, 156 points each", test_equal25 },
	{ "ketama: RDMA members with memcache ring names", test_rdma_ring_names },
	{ "ketama: ring names decide placement", test_naming_matters },
	{ "ring points per server", test_points },
	{ "gb_fleet_create rejects bad sets", test_create_errors },
	{ "gb_fleet_parse", test_parse },
	{ "one server takes every key", test_single },
};

int main(void)
{
	make_keys();
	return unit_run(tests, ARRAY_SIZE(tests));
}
