# A Godot 4 server on 127.0.0.1:$PORT (WebSocket; $TRANSPORT=enet: ENet) that turns
# new clients away (MultiplayerPeer.refuse_new_connections = true), for
# godot-bin-multiplayer's multiplayer/tests/refuse_engines.rs: what a client of it
# sees is what a client of the crate's refusing server must see. Prints
# {"listening": true}, then {"peer": id} for any client it lets in (none should
# be); quits with 0 after $SECONDS seconds.
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
		err = peer.create_server(port, "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	peer.refuse_new_connections = true
	var mp := get_multiplayer()
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(func(id): print(JSON.stringify({"peer": id})))
	print(JSON.stringify({"listening": true}))

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		quit(0)
		return true
	return false
