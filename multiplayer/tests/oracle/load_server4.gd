# The load test's server in GDScript (multiplayer/scripts/load-test.sh), the same
# logic as multiplayer/examples/load_server.rs: every ping(seq, sent_us) a client
# sends is forwarded as pong(from, seq, sent_us) to the 10 clients after it in id
# order (a ring). $TRANSPORT ws or enet, $PORT, $SECONDS; prints {"listening"}.
extends SceneTree

const LOAD := """extends Node
var peers := []
@rpc("any_peer") func ping(seq: int, sent: int):
	var from := multiplayer.get_remote_sender_id()
	var i := peers.bsearch(from)
	var n := peers.size()
	for k in range(1, min(11, n)):
		rpc_id(peers[(i + k) % n], "pong", from, seq, sent)
@rpc func pong(_from: int, _seq: int, _sent: int): pass
"""

var load: Node
var deadline := 0

func _initialize():
	deadline = Time.get_ticks_msec() + int(OS.get_environment("SECONDS")) * 1000
	var script := GDScript.new()
	script.source_code = LOAD
	script.reload()
	load = Node.new()
	load.name = "Load"
	load.set_script(script)
	root.add_child(load)
	var mp := get_multiplayer()
	var port := int(OS.get_environment("PORT"))
	var peer: MultiplayerPeer
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		peer.set_bind_ip("127.0.0.1")
		err = peer.create_server(port, 4095)
	else:
		peer = WebSocketMultiplayerPeer.new()
		err = peer.create_server(port, "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(func(id): load.peers.insert(load.peers.bsearch(id), id))
	mp.peer_disconnected.connect(func(id): load.peers.erase(id))
	print(JSON.stringify({"listening": true}))

func _process(_d):
	return Time.get_ticks_msec() > deadline
