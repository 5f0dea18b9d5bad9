# A Godot 4 SceneMultiplayer server on WebSocket ($TRANSPORT=enet: ENet) on port $PORT, for
# godot-bin-multiplayer's tests (multiplayer/tests/ws_engines.rs): Rust clients join
# it. Every call it runs is printed as {"ran", "from", "args": var_to_bytes of the
# argument array} and sent back to its caller with the same arguments. It prints
# {"listening"} once it listens, {"peer"}/{"left"} as clients come and go, and quits
# with 0 when the last of them left after one had joined, or with 1 after 60 seconds.
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

var game: Node
var mp: SceneMultiplayer
var joined := 0
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
	mp.multiplayer_peer = peer
	mp.peer_connected.connect(func(id): joined += 1; print(JSON.stringify({"peer": id})))
	mp.peer_disconnected.connect(_left)
	print(JSON.stringify({"listening": true}))

func _left(id: int):
	print(JSON.stringify({"left": id}))
	if mp.get_peers().is_empty():
		quit(0)

func _ran(method: String, args: Array):
	var from := mp.get_remote_sender_id()
	print(JSON.stringify({"ran": method, "from": from, "args": var_to_bytes(args).hex_encode()}))
	if method != "shout":
		game.callv("rpc_id", [from, method] + args)

func _process(_d):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": joined}))
		quit(1)
		return true
	return false
