# A Godot 4 server on 127.0.0.1:$PORT (WebSocket; $TRANSPORT=enet: ENet) with the
# handshake settings a client can be turned away by, for godot-bin-multiplayer's
# multiplayer/tests/gate_engines.rs: what a client of it sees is what a client of the
# crate's server with the same settings must see. $REFUSE=1: it refuses new
# connections (MultiplayerPeer.refuse_new_connections); $PROTOCOLS: the WebSocket
# sub-protocols it supports, comma-separated (supported_protocols; none when empty).
# Prints {"listening": true}, then {"peer": id} for each client it lets in; quits
# with 0 after $SECONDS seconds.
extends SceneTree

var deadline := 0

func _initialize():
	deadline = Time.get_ticks_msec() + int(OS.get_environment("SECONDS")) * 1000
	var port := int(OS.get_environment("PORT"))
	var peer: MultiplayerPeer
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		peer.set_bind_ip("127.0.0.1")
		err = peer.create_server(port)
	else:
		peer = WebSocketMultiplayerPeer.new()
		var protocols := OS.get_environment("PROTOCOLS")
		if protocols != "":
			peer.supported_protocols = PackedStringArray(protocols.split(","))
		err = peer.create_server(port, "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	peer.refuse_new_connections = OS.get_environment("REFUSE") == "1"
	var mp := get_multiplayer()
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(func(id): print(JSON.stringify({"peer": id})))
	print(JSON.stringify({"listening": true}))

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		quit(0)
		return true
	return false
