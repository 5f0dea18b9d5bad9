
# Random records as RPC arguments, for multiplayer/tests/engine_records.rs: Godot 3's
# MultiplayerAPI calls `take(record, n)` with records.gd's records (a Dictionary
# shaped like the test's derived `Record` struct, or otherwise) and a random int, from
# a client (/root/C/Game, id 1234567) to the server (/root/S/Game), over
# NetworkedMultiplayerCustom peers as in mp3.gd. Before each call: {"i", "kind", "n"};
# every packet the client sends: {"packet": "c2s", "hex"}. The call's packet is the
# first remote call after its line.
#
# Not a script on its own: the test appends it to random3.gd (all but its _init) and
# ../../../tests/oracle/records.gd (all but its _init), after the prelude that
# tests/engine_structs.rs gives them. From ORACLE_SEED, ORACLE_COUNT calls, BATCH a
# frame.

const BATCH := 50

const GAME := """extends Node
remote func take(_record, _n): pass
"""

var frame := 0
var sent := 0
var count := 0
var c_game: Node
var s_peer := NetworkedMultiplayerCustom.new()
var c_peer := NetworkedMultiplayerCustom.new()
var s_api := MultiplayerAPI.new()
var c_api := MultiplayerAPI.new()

func game(parent_name: String) -> Node:
	var parent := Node.new()
	parent.name = parent_name
	root.add_child(parent)
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
	rng.seed = int(seed_text) if seed_text != "" else 1
	count = int(count_text) if count_text != "" else 100
	var s_game := game("S")
	c_game = game("C")
	s_peer.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTING)
	c_peer.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTING)
	s_peer.initialize(1)
	c_peer.initialize(1234567)
	# A server is connected once initialized; a client says so itself.
	c_peer.set_connection_status(NetworkedMultiplayerPeer.CONNECTION_CONNECTED)
	s_peer.connect("packet_generated", self, "_s_out")
	c_peer.connect("packet_generated", self, "_c_out")
	s_api.root_node = s_game.get_parent()
	c_api.root_node = c_game.get_parent()
	s_api.network_peer = s_peer
	c_api.network_peer = c_peer
	# Godot 3 looks for a custom MultiplayerAPI on the node itself, not its parents.
	s_game.custom_multiplayer = s_api
	c_game.custom_multiplayer = c_api
	s_peer.emit_signal("peer_connected", 1234567)
	c_peer.emit_signal("peer_connected", 1)

func _s_out(_to: int, buf: PoolByteArray, _mode: int):
	c_peer.deliver_packet(buf, 1)

func _c_out(_to: int, buf: PoolByteArray, _mode: int):
	print(JSON.print({"packet": "c2s", "hex": buf.hex_encode()}))
	s_peer.deliver_packet(buf, 1234567)

func _idle(_d):
	frame += 1
	s_api.poll()
	c_api.poll()
	if frame >= 2:
		for _k in range(BATCH):
			if sent == count:
				break
			var kind := 0 if chance(0.4) else rng.randi_range(1, 7)
			var n := rint()
			print(JSON.print({"i": sent, "kind": kind, "n": str(n)}))
			c_game.rpc_id(1, "take", record(kind), n)
			sent += 1
	# A few frames more, for the last calls to arrive.
	return sent == count and frame > count / BATCH + 4
