# A Godot 4 client of 127.0.0.1:$PORT (WebSocket; $TRANSPORT=enet: ENet) that
# reports what SceneMultiplayer tells it, for multiplayer/tests/refuse_engines.rs:
# {"connected": true}, {"failed": true}, {"peer": id} (the server as 1),
# {"left": id}, {"server_disconnected": true}, in order, then after $SECONDS
# seconds {"status": the peer's connection status} and quits with 0.
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
		err = peer.create_client("ws://127.0.0.1:%d" % port)
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	var mp := get_multiplayer()
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(func(): print(JSON.stringify({"connected": true})))
	mp.connection_failed.connect(func(): print(JSON.stringify({"failed": true})))
	mp.server_disconnected.connect(func(): print(JSON.stringify({"server_disconnected": true})))
	mp.peer_connected.connect(func(id): print(JSON.stringify({"peer": id})))
	mp.peer_disconnected.connect(func(id): print(JSON.stringify({"left": id})))

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"status": peer.get_connection_status()}))
		quit(0)
		return true
	return false
