# A Godot 4 SceneMultiplayer client on WebSocket (port $PORT), for
# godot-bin-multiplayer's tests (multiplayer/tests/names_engines.rs): what a server
# makes of the names a Godot 4 client sends. Every call it runs is printed as
# {"ran", "args"}.
# - $CASE=bom: its node is named "\ufeffGame"; it calls greet("bom-path") (the engine
#   sends its node's path, BOM first), then done(). It quits with 0 once it ran
#   greet("back"), or 5 seconds after it connected (a server that has no node of its
#   path cannot reach it).
# - $CASE=unknown: calls the server has no node or method for. Its node "Game" has
#   one rpc more than the server's, "zzz" (sorted last, so the others keep their ids;
#   the checksums differ); it calls zzz() there, greet("lost") on its node
#   "Elsewhere" (by path), greet("after") on "Game", and half a second later
#   greet("lost again") on "Elsewhere" (by path again: a Godot 4 server does not
#   confirm a path it has no node for) and done() on "Game". It quits with 0 once it
#   ran done(), which a server sends back.
# Otherwise it quits with 1: after 30 seconds, or when the server closed.
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
"""
const ZZZ := """@rpc("any_peer") func zzz(): ran.emit("zzz", [])
"""

var bom := OS.get_environment("CASE") == "bom"
var game: Node
var elsewhere: Node
var mp: SceneMultiplayer
var deadline := 0
var later := 0
var grace := 0

func node(name: String) -> Node:
	var script := GDScript.new()
	script.source_code = GAME if bom else GAME + ZZZ
	script.reload()
	var n := Node.new()
	n.name = name
	n.set_script(script)
	root.add_child(n)
	n.ran.connect(_ran)
	return n

func _initialize():
	deadline = Time.get_ticks_msec() + 30000
	if bom:
		game = node("\ufeffGame")
	else:
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
	print(JSON.stringify({"connected": mp.get_unique_id(), "path": str(game.get_path())}))
	if bom:
		grace = Time.get_ticks_msec() + 5000
		game.rpc_id(1, "greet", "bom-path")
		game.rpc_id(1, "done")
	else:
		game.rpc_id(1, "zzz")
		elsewhere.rpc_id(1, "greet", "lost")
		game.rpc_id(1, "greet", "after")
		later = Time.get_ticks_msec() + 500

func _closed():
	print(JSON.stringify({"closed": true}))
	quit(1)

func _ran(method: String, args: Array):
	print(JSON.stringify({"ran": method, "args": args}))
	if method == "done" or (method == "greet" and args == ["back"]):
		quit(0)

func _process(_d):
	var now := Time.get_ticks_msec()
	if later and now > later:
		later = 0
		elsewhere.rpc_id(1, "greet", "lost again")
		game.rpc_id(1, "done")
	if grace and now > grace:
		print(JSON.stringify({"timeout": true}))
		quit(0)
		return true
	if now > deadline:
		print(JSON.stringify({"timeout": true}))
		quit(1)
		return true
	return false
