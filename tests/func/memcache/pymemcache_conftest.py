# SPDX-License-Identifier: GPL-2.0
"""Fallback pytest plugin for pymemcache's integration tests.

Only used when the installed pymemcache does not ship test/conftest.py:
provides the --server/--port options and the fixtures the tests use.
"""

import socket

import pytest


def pytest_addoption(parser):
    parser.addoption("--server", action="store", default="127.0.0.1")
    parser.addoption("--port", action="store", default="11211")


@pytest.fixture(scope="session")
def host(request):
    return request.config.option.server


@pytest.fixture(scope="session")
def port(request):
    return int(request.config.option.port)


def pytest_generate_tests(metafunc):
    if "socket_module" in metafunc.fixturenames:
        metafunc.parametrize("socket_module", [socket])
    if "client_class" in metafunc.fixturenames:
        from pymemcache.client.base import Client, PooledClient
        from pymemcache.client.hash import HashClient

        class OneServerHashClient(HashClient):
            def __init__(self, server, *args, **kwargs):
                super().__init__([server], *args, **kwargs)

        metafunc.parametrize("client_class",
                             [Client, PooledClient, OneServerHashClient])
