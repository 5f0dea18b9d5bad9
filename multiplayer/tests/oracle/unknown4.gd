# A Godot 4 SceneMultiplayer client on WebSocket (port $PORT), for
# godot-bin-multiplayer's tests (multiplayer/tests/unknown_engines.rs): calls the
# server has no node or method for, which the engine's server drops (with an error
# line) and goes on. Its node "Game" has one rpc more than the server's, "zzz"
# (sorted last, so the others keep their ids; the checksums differ); it calls zzz()
# there, greet("lost") on its node "Elsewhere" (which the server does not have),
# greet("after") on "Game", and half a second later greet("lost again") on
# "Elsewhere" and done() on "Game". Every call it runs is printed as
# {"ran", "args"}. It quits with 0 once it ran done(), which a server sends back
# when it got its done(), or with 1 after 30 seconds, or when the server closed the
# connection.
extends SceneTree

const GAME := """extends Node
signal ran(method: String, args: Array)
@rpc("any_peer") func ping(): ran.emit("ping", [])
@rpc("any_peer") func blob(b: PackedByteArray): ran.emit("blob", [b])
@rpc("any_peer") func one(a): ran.emit("one", [a])
@rpc("any_peer") func two(a, b): ran.emit("two", [a, b])
@rpc("any_peer") func three(a, b, c): ran.emit("three", [a, b, c])
@rpc("any_peer") func greet(text: String): ran.emit("greet", [text])
@rpc("any_peer") func shout(text: String): ran.emit("shout", [text])
@rpc("any_peer") func done(): ran.emit("done", [])
@rpc("any_peer") func zzz(): ran.emit("zzz", [])
"""

var game: Node
var elsewhere: Node
var mp: SceneMultiplayer
var deadline := 0
var later := 0

func node(name: String) -> Node:
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	var n := Node.new()
	n.name = name
	n.set_script(script)
	root.add_child(n)
	n.ran.connect(_ran)
	return n

func _initialize():
	deadline = Time.get_ticks_msec() + 30000
	game = node("Game")
	elsewhere = node("Elsewhere")
	mp = get_multiplayer()
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client("ws://127.0.0.1:%s" % OS.get_environment("PORT"))
	if err != OK:
		print(JSON.stringify({"error": err}))
		quit(1)
		return
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(_connected)
	mp.server_disconnected.connect(_closed)

func _connected():
	print(JSON.stringify({"connected": mp.get_unique_id()}))
	game.rpc_id(1, "zzz")
	elsewhere.rpc_id(1, "greet", "lost")
	game.rpc_id(1, "greet", "after")
	later = Time.get_ticks_msec() + 500

func _closed():
	print(JSON.stringify({"closed": true}))
	quit(1)

func _ran(method: String, args: Array):
	print(JSON.stringify({"ran": method, "args": args}))
	if method == "done":
		quit(0)

func _process(_d):
	# Half a second on, the server has answered the SIMPLIFY_PATHs (a Godot 4 server
	# does not answer one of a path it has no node for: this call goes by path again).
	if later and Time.get_ticks_msec() > later:
		later = 0
		elsewhere.rpc_id(1, "greet", "lost again")
		game.rpc_id(1, "done")
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
