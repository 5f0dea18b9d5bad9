# A Godot 4 SceneMultiplayer server on WebSocket port $PORT with server_relay off, for
# godot-bin-multiplayer's tests (multiplayer/tests/server_relay_engines.rs): its
# clients should hear of no other client, and a relay sent anyway should go nowhere.
# It prints {"listening"} once it listens, {"peer"}/{"left"} as clients come and go,
# and {"ran": "done", "from"} for each done() call, which it sends back to its
# caller; it quits with 0 when the last client left, or with 1 after 60 seconds.
extends SceneTree

const GAME := """extends Node
signal ran(method: String)
@rpc("any_peer") func hello(_a): ran.emit("hello")
@rpc("any_peer") func done(): ran.emit("done")
"""

var game: Node
var mp: SceneMultiplayer
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
	mp.server_relay = false
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_server(int(OS.get_environment("PORT")), "127.0.0.1")
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(func(id): print(JSON.stringify({"peer": id})))
	mp.peer_disconnected.connect(_left)
	print(JSON.stringify({"listening": true}))

func _left(id: int):
	print(JSON.stringify({"left": id}))
	if mp.get_peers().is_empty():
		quit(0)

func _ran(method: String):
	var from := mp.get_remote_sender_id()
	print(JSON.stringify({"ran": method, "from": from}))
	if method == "done":
		game.rpc_id(from, "done")

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
