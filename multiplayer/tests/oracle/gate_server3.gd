# A Godot 3 server on 127.0.0.1:$PORT (WebSocketServer; $TRANSPORT=enet:
# NetworkedMultiplayerENet) with the handshake settings a client can be turned away
# by, for godot-bin-multiplayer's multiplayer/tests/gate_engines.rs: what a client of
# it sees is what a client of the crate's server with the same settings must see.
# $REFUSE=1: it refuses new connections (refuse_new_connections); $PROTOCOLS: the
# WebSocket sub-protocols it supports, comma-separated (listen()'s protocols; none
# when empty). Prints {"listening": true}, then {"peer": id} for each client it lets
# in; quits with 0 after $SECONDS seconds.
extends SceneTree

var deadline := 0

func _initialize():
	deadline = OS.get_ticks_msec() + int(OS.get_environment("SECONDS")) * 1000
	var port := int(OS.get_environment("PORT"))
	var peer: NetworkedMultiplayerPeer
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = NetworkedMultiplayerENet.new()
		peer.set_bind_ip("127.0.0.1")
		err = peer.create_server(port)
	else:
		peer = WebSocketServer.new()
		peer.bind_ip = "127.0.0.1"
		var protocols := PoolStringArray()
		if OS.get_environment("PROTOCOLS") != "":
			protocols = PoolStringArray(OS.get_environment("PROTOCOLS").split(","))
		err = peer.listen(port, protocols, true)
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	peer.refuse_new_connections = OS.get_environment("REFUSE") == "1"
	network_peer = peer
	connect("network_peer_connected", self, "_peer")
	print(JSON.print({"listening": true}))

func _peer(id):
	print(JSON.print({"peer": id}))

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		quit(0)
		return true
	return false
