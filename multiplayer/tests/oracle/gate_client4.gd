# A Godot 4 client of 127.0.0.1:$PORT (WebSocket, asking for the sub-protocols in
# $PROTOCOLS, comma-separated, if any; $TRANSPORT=enet: ENet) that reports what
# SceneMultiplayer tells it, for multiplayer/tests/gate_engines.rs:
# {"connected": the WebSocket sub-protocol the server chose, "" for none or ENet},
# {"failed": true}, {"peer": id} (the server as 1), {"left": id},
# {"server_disconnected": true}, in order, then after $SECONDS seconds
# {"status": the peer's connection status} and quits with 0.
extends SceneTree

var deadline := 0
var peer: MultiplayerPeer

func _initialize():
	deadline = Time.get_ticks_msec() + int(OS.get_environment("SECONDS")) * 1000
	var port := int(OS.get_environment("PORT"))
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		err = peer.create_client("127.0.0.1", port)
	else:
		peer = WebSocketMultiplayerPeer.new()
		var protocols := OS.get_environment("PROTOCOLS")
		if protocols != "":
			peer.supported_protocols = PackedStringArray(protocols.split(","))
		err = peer.create_client("ws://127.0.0.1:%d" % port)
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	var mp := get_multiplayer()
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(_connected)
	mp.connection_failed.connect(func(): print(JSON.stringify({"failed": true})))
	mp.server_disconnected.connect(func(): print(JSON.stringify({"server_disconnected": true})))
	mp.peer_connected.connect(func(id): print(JSON.stringify({"peer": id})))
	mp.peer_disconnected.connect(func(id): print(JSON.stringify({"left": id})))

func _connected():
	var chosen := ""
	if peer is WebSocketMultiplayerPeer:
		chosen = (peer as WebSocketMultiplayerPeer).get_peer(1).get_selected_protocol()
	print(JSON.stringify({"connected": chosen}))

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"status": peer.get_connection_status()}))
		quit(0)
		return true
	return false
