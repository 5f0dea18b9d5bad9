# A Godot 4 client on WebSocket port $PORT that authenticates (auth_callback), for
# godot-bin-multiplayer's tests (multiplayer/tests/auth_engines.rs): it sends
# $SECRET, completes once the server answers "welcome", calls done() once
# connected, and quits with 0 when done() comes back. It prints
# {"authenticating"}, {"auth": hex of what the server sent}, {"connected"} and
# {"ran": "done"}; with 1 after 30 seconds, or 2 when the server closes first.
extends SceneTree

const GAME := """extends Node
signal ran(method: String)
@rpc("any_peer") func done(): ran.emit("done")
"""

var game: Node
var mp: SceneMultiplayer
var deadline := 0

func _initialize():
	deadline = Time.get_ticks_msec() + 30000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "Game"
	game.set_script(script)
	root.add_child(game)
	game.ran.connect(func(m): print(JSON.stringify({"ran": m})); quit(0))
	mp = get_multiplayer()
	mp.auth_callback = _auth
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client("ws://127.0.0.1:%s" % OS.get_environment("PORT"))
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.peer_authenticating.connect(_authenticating)
	mp.connected_to_server.connect(_connected)
	mp.server_disconnected.connect(_closed)
	mp.connection_failed.connect(_closed)

func _closed():
	print(JSON.stringify({"closed": true}))
	quit(2)

func _authenticating(id: int):
	print(JSON.stringify({"authenticating": id}))
	mp.send_auth(id, OS.get_environment("SECRET").to_utf8_buffer())

func _auth(id: int, data: PackedByteArray):
	print(JSON.stringify({"auth": data.hex_encode()}))
	if data.get_string_from_utf8() == "welcome":
		mp.complete_auth(id)

func _connected():
	print(JSON.stringify({"connected": mp.get_unique_id()}))
	game.rpc_id(1, "done")

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
