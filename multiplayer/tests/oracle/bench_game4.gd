# The node bench_rpc_path.gd calls: the three rpc methods of multiplayer/benches/rpc.rs
# (sorted: chat 0, move 1, state 2), each only counting its calls.
extends Node

var calls := 0

@rpc("any_peer")
func move(_a, _b, _c, _d):
	calls += 1

@rpc("any_peer")
func chat(_a, _b):
	calls += 1

@rpc("any_peer")
func state(_a, _b):
	calls += 1
