// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Smallest libgoblin program: store a value and read it back.
 *
 *   hello [tcp|rdma] [HOST [PORT]]    (default tcp 127.0.0.1 11211)
 *
 * Build against an installed libgoblin-dev:
 *   cc hello.c $(pkg-config --cflags --libs goblin)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <goblin/client.h>

#if !GB_VERSION_AT_LEAST(0, 1, 0)
#error "libgoblin 0.1.0 or later needed"
#endif

int main(int argc, char **argv)
{
	static const char key[] = "hello-example";
	static const char val[] = "hello, goblin";
	struct gb_connect_opts o;
	struct gb_conn *c;
	char buf[64];
	size_t len;
	int ret;

	gb_connect_opts_init(&o);
	if (argc > 1 && gb_transport_parse(argv[1], &o.transport)) {
		fprintf(stderr, "usage: %s [tcp|rdma] [HOST [PORT]]\n", argv[0]);
		return 2;
	}
	if (argc > 2)
		o.host = argv[2];
	if (argc > 3)
		o.port = (uint16_t)atoi(argv[3]);
	if (gb_version_number() < GB_VERSION_ENCODE(0, 1, 0)) {
		fprintf(stderr, "libgoblin %s is too old\n", gb_version());
		return 1;
	}
	ret = gb_connect(&o, &c);
	if (ret) {
		fprintf(stderr, "connect: %s: %s\n", gb_strerror(ret),
			gb_errmsg(NULL));
		return 1;
	}
	ret = gb_set(c, key, strlen(key), val, strlen(val), 0, 0);
	if (!ret)
		ret = gb_get_copy(c, key, strlen(key), buf, sizeof(buf), &len,
				  NULL, NULL);
	if (ret)
		fprintf(stderr, "%s: %s\n", gb_strerror(ret), gb_errmsg(c));
	else
		printf("%.*s (libgoblin %s, headers %s)\n", (int)len, buf,
		       gb_version(), GB_VERSION_STRING);
	gb_close(c);
	return ret ? 1 : 0;
}
