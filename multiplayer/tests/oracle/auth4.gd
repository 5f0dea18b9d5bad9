# A Godot 4 SceneMultiplayer server on WebSocket port $PORT that authenticates its
# clients (auth_callback), for godot-bin-multiplayer's tests
# (multiplayer/tests/auth_engines.rs): a client that sends "secret" gets "welcome"
# and is admitted; any other is disconnected. It prints {"listening"} once it
# listens, {"authenticating"}, {"auth": id, "data": hex}, {"peer"}, {"left"} as
# clients come and go, and {"ran": "done", "from"} for each done() call, which it
# sends back to its caller; it quits with 0 when the last client left after one was
# admitted, or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method: String)
@rpc("any_peer") func done(): ran.emit("done")
"""

var game: Node
var mp: SceneMultiplayer
var admitted := 0
var deadline := 0

func _initialize():
	deadline = Time.get_ticks_msec() + 60000
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	game = Node.new()
	game.name = "Game"
	game.set_script(script)
	root.add_child(game)
	game.ran.connect(_ran)
	mp = get_multiplayer()
	mp.auth_callback = _auth
	mp.auth_timeout = 10
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_server(int(OS.get_environment("PORT")), "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.peer_authenticating.connect(func(id): print(JSON.stringify({"authenticating": id})))
	mp.peer_authentication_failed.connect(func(id): print(JSON.stringify({"auth_failed": id})))
	mp.peer_connected.connect(func(id): admitted += 1; print(JSON.stringify({"peer": id})))
	mp.peer_disconnected.connect(_left)
	print(JSON.stringify({"listening": true}))

func _auth(id: int, data: PackedByteArray):
	print(JSON.stringify({"auth": id, "data": data.hex_encode()}))
	if data.get_string_from_utf8() == "secret":
		mp.send_auth(id, "welcome".to_utf8_buffer())
		mp.complete_auth(id)
	else:
		mp.multiplayer_peer.disconnect_peer(id)

func _left(id: int):
	print(JSON.stringify({"left": id}))
	if admitted > 0 and mp.get_peers().is_empty():
		quit(0)

func _ran(method: String):
	var from := mp.get_remote_sender_id()
	print(JSON.stringify({"ran": method, "from": from}))
	game.rpc_id(from, "done")

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
