
# Random records as RPC arguments, for multiplayer/tests/engine_records.rs: Godot 4's
# SceneMultiplayer calls `take(record, n)` with records.gd's records (a Dictionary
# shaped like the test's derived `Record` struct, or otherwise) and a random int, from
# a client (/root/C, id 1234567) to the server (/root/S), over link4.gd, which prints
# every packet. Before each call: {"i", "kind", "n"}; the call's packet is the first
# client-to-server remote call after it.
#
# Not a script on its own: the test appends it to random4.gd (all but its _init) and
# ../../../tests/oracle/records.gd (all but its _init), after the prelude that
# tests/engine_structs.rs gives them, and runs it beside link4.gd. From ORACLE_SEED,
# ORACLE_COUNT calls, BATCH a frame.

const Link := preload("res://link4.gd")
const BATCH := 50

const GAME := """extends Node
@rpc("any_peer") func take(_record, _n): pass
"""

var frame := 0
var sent := 0
var count := 0
var c_game: Node

func game(parent: Node) -> Node:
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	var n := Node.new()
	n.name = "Game"
	n.set_script(script)
	parent.add_child(n)
	return n

func _initialize():
	setup()
	var seed_text := OS.get_environment("ORACLE_SEED")
	var count_text := OS.get_environment("ORACLE_COUNT")
	rng.seed = seed_text.to_int() if seed_text != "" else 1
	count = count_text.to_int() if count_text != "" else 100
	var s_root := Node.new(); s_root.name = "S"; root.add_child(s_root)
	var c_root := Node.new(); c_root.name = "C"; root.add_child(c_root)
	game(s_root)
	c_game = game(c_root)
	var sp := Link.new(1, "s")
	var cp := Link.new(1234567, "c")
	sp.links = {cp.id: cp}; cp.links = {1: sp}
	var sm := SceneMultiplayer.new(); var cm := SceneMultiplayer.new()
	set_multiplayer(sm, ^"/root/S")
	set_multiplayer(cm, ^"/root/C")
	sm.multiplayer_peer = sp
	cm.multiplayer_peer = cp
	sp.peer_connected.emit(cp.id)
	cp.peer_connected.emit(1)

func _process(_d):
	frame += 1
	if frame >= 2:
		for _k in range(BATCH):
			if sent == count:
				break
			var kind := 0 if chance(0.4) else rng.randi_range(1, 7)
			var n := rint()
			print(JSON.stringify({"i": sent, "kind": kind, "n": str(n)}))
			c_game.rpc_id(1, "take", record(kind), n)
			sent += 1
	# A few frames more, for the last calls to arrive.
	return sent == count and frame > count / BATCH + 4
