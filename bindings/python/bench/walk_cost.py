"""The Python side of the cost table: empty-callback walks of N vertices, chain and fan-out.

Usage: python3 walk_cost.py [N] [REPEAT] [KIND...]; prints "kind shape
ns-per-vertex", the best of REPEAT runs, for each kind of walk named (all by
default): the callback
walk (Graph.walk), the asyncio walk (Graph.walk_async, an empty coroutine
per vertex), ``async for`` over a pull walk completing each vertex at once
(the floor of an asyncio walk) and the executor walk (Graph.walk_on, a ThreadPoolExecutor of
4 threads). Default options otherwise (parallelism 10, timestamps on).
"""

import asyncio
import concurrent.futures
import sys
import time

import libdag


def shape(fan_out, n):
    g = libdag.Graph()
    ids = g.add_vertices([None] * n)
    g.connect_many((ids[i], ids[0] if fan_out else ids[i - 1]) for i in range(1, n))
    return g


def empty(vertex):
    pass


async def empty_async(vertex):
    pass


def callback_walk(g):
    g.walk(empty).raise_for_status()


def asyncio_walk(g):
    asyncio.run(g.walk_async(empty_async)).raise_for_status()


async def complete_each(g):
    with g.pull_walker() as walk:
        walk.start()
        async for vertex in walk:
            walk.complete(vertex)
        return walk.wait()


def async_for_walk(g):
    asyncio.run(complete_each(g)).raise_for_status()


def executor_walk(g):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        g.walk_on(pool, empty).raise_for_status()


KINDS = {"callback": callback_walk, "asyncio": asyncio_walk, "async-for": async_for_walk, "executor": executor_walk}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    kinds = sys.argv[3:] or list(KINDS)
    for fan_out, name in ((False, "chain"), (True, "fan-out")):
        g = shape(fan_out, n)
        for kind in kinds:
            run = KINDS[kind]
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                run(g)
                best = min(best, time.perf_counter() - t0)
            print(f"{kind} {name} {best * 1e9 / n:.0f}", flush=True)


if __name__ == "__main__":
    main()
