# A Godot 3 client of 127.0.0.1:$PORT (WebSocketClient, asking for the sub-protocols
# in $PROTOCOLS, comma-separated, if any; $TRANSPORT=enet: NetworkedMultiplayerENet)
# that reports what the MultiplayerAPI tells it, for
# multiplayer/tests/gate_engines.rs: {"connected": true}, {"failed": true},
# {"peer": id} (the server as 1), {"left": id}, {"server_disconnected": true}, in
# order, then after $SECONDS seconds {"status": the peer's connection status} and
# quits with 0.
extends SceneTree

var deadline := 0
var peer: NetworkedMultiplayerPeer

func _initialize():
	deadline = OS.get_ticks_msec() + int(OS.get_environment("SECONDS")) * 1000
	var port := int(OS.get_environment("PORT"))
	var err: int
	if OS.get_environment("TRANSPORT") == "enet":
		peer = NetworkedMultiplayerENet.new()
		err = peer.create_client("127.0.0.1", port)
	else:
		peer = WebSocketClient.new()
		var protocols := PoolStringArray()
		if OS.get_environment("PROTOCOLS") != "":
			protocols = PoolStringArray(OS.get_environment("PROTOCOLS").split(","))
		err = peer.connect_to_url("ws://127.0.0.1:%d" % port, protocols, true)
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	network_peer = peer
	connect("connected_to_server", self, "_say", [{"connected": true}])
	connect("connection_failed", self, "_say", [{"failed": true}])
	connect("server_disconnected", self, "_say", [{"server_disconnected": true}])
	connect("network_peer_connected", self, "_peer")
	connect("network_peer_disconnected", self, "_left")

func _say(what):
	print(JSON.print(what))

func _peer(id):
	print(JSON.print({"peer": id}))

func _left(id):
	print(JSON.print({"left": id}))

func _idle(_d):
	if OS.get_ticks_msec() > deadline:
		print(JSON.print({"status": peer.get_connection_status()}))
		quit(0)
		return true
	return false
