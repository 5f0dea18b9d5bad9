# A Godot 3 MultiplayerAPI client on WebSocket (port $PORT), for
# godot-bin-multiplayer's tests (multiplayer/tests/names_engines.rs): what a server
# makes of the names a Godot 3 client sends. Every call it runs is printed as
# {"ran", "args"}.
# - $CASE=bom: its node is named "\ufeffGame"; it calls greet("bom-method") as
#   "\ufeffgreet", greet("bom-path") (the engine sends its node's path, BOM first),
#   then done(). It quits with 0 once it ran greet("back"), or 5 seconds after it
#   connected (a server that has no node of its path cannot reach it).
# - $CASE=unknown: calls the server has no node or method for. It calls "nosuch" on
#   its node "Game", greet("lost") on its node "Elsewhere" (by path), greet("after")
#   on "Game", and half a second later greet("lost again") on "Elsewhere" (by its
#   cache id: a Godot 3 server confirms even a path it has no node for) and done()
#   on "Game". It quits with 0 once it ran done(), which a server sends back.
# Otherwise it quits with 1: after 30 seconds, or when the server closed.
extends SceneTree

const GAME := """extends Node
signal ran(method, args)
remote func ping(): emit_signal("ran", "ping", [])
remote func blob(b): emit_signal("ran", "blob", [b])
remote func one(a): emit_signal("ran", "one", [a])
remote func two(a, b): emit_signal("ran", "two", [a, b])
remote func three(a, b, c): emit_signal("ran", "three", [a, b, c])
remote func greet(text): emit_signal("ran", "greet", [text])
remote func shout(text): emit_signal("ran", "shout", [text])
remote func done(): emit_signal("ran", "done", [])
"""

var bom := OS.get_environment("CASE") == "bom"
var game: Node
var elsewhere: Node
var client := WebSocketClient.new()
var deadline := 0
var later := 0
var grace := 0

func node(name: String) -> Node:
	var script := GDScript.new()
	script.source_code = GAME
	script.reload()
	var n := Node.new()
	n.name = name
	n.set_script(script)
	root.add_child(n)
	n.connect("ran", self, "_ran")
	return n

func _initialize():
	deadline = OS.get_ticks_msec() + 30000
	if bom:
		game = node("\ufeffGame")
	else:
		game = node("Game")
		elsewhere = node("Elsewhere")
	var err := client.connect_to_url("ws://127.0.0.1:%s" % OS.get_environment("PORT"), PoolStringArray(), true)
	network_peer = client
	if err != OK:
		print(JSON.print({"error": err}))
		quit(1)
		return
	connect("connected_to_server", self, "_connected")
	connect("server_disconnected", self, "_closed")

func _connected():
	print(JSON.print({"connected": get_network_unique_id(), "path": str(game.get_path())}))
	if bom:
		grace = OS.get_ticks_msec() + 5000
		game.rpc_id(1, "\ufeffgreet", "bom-method")
		game.rpc_id(1, "greet", "bom-path")
		game.rpc_id(1, "done")
	else:
		game.rpc_id(1, "nosuch", "x")
		elsewhere.rpc_id(1, "greet", "lost")
		game.rpc_id(1, "greet", "after")
		later = OS.get_ticks_msec() + 500

func _closed():
	print(JSON.print({"closed": true}))
	quit(1)

func _ran(method: String, args: Array):
	print(JSON.print({"ran": method, "args": args}))
	if method == "done" or (method == "greet" and args == ["back"]):
		quit(0)

func _idle(_d):
	var now := OS.get_ticks_msec()
	if later and now > later:
		later = 0
		elsewhere.rpc_id(1, "greet", "lost again")
		game.rpc_id(1, "done")
	if grace and now > grace:
		print(JSON.print({"timeout": true}))
		quit(0)
		return true
	if now > deadline:
		print(JSON.print({"timeout": true}))
		quit(1)
		return true
	return false
