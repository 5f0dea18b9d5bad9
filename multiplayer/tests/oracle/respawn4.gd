# A Godot 4 client that makes its node again and again, as a game respawns a
# player's node, for godot-bin-multiplayer's tests (multiplayer/tests/engines.rs).
# It connects to ws://127.0.0.1:$PORT ($TRANSPORT=enet: ENet), then $LIVES times
# (twenty a frame): adds a new node "Game" whose script has the rpc ping(n), calls
# ping(life) on the server, and frees the node. Each new node gets a new path cache
# id, announced by a SIMPLIFY_PATH of its own. It prints {"connected": id}, then
# {"lives": n} and quits with 0 once all lives are done, or with 1 after 60 seconds
# or if the server drops it.
extends SceneTree

const GAME := """extends Node
@rpc("any_peer") func ping(_n: int): pass
"""

var mp: SceneMultiplayer
var game_script: GDScript
var lives := 0
var wanted := 0
var connected := false
var deadline := 0

func _initialize():
	deadline = Time.get_ticks_msec() + 60000
	wanted = int(OS.get_environment("LIVES"))
	game_script = GDScript.new()
	game_script.source_code = GAME
	game_script.reload()
	mp = get_multiplayer()
	var port := int(OS.get_environment("PORT"))
	var peer: MultiplayerPeer
	if OS.get_environment("TRANSPORT") == "enet":
		peer = ENetMultiplayerPeer.new()
		peer.create_client("127.0.0.1", port)
	else:
		peer = WebSocketMultiplayerPeer.new()
		peer.create_client("ws://127.0.0.1:%d" % port)
	mp.multiplayer_peer = peer
	mp.connected_to_server.connect(_connected)
	mp.server_disconnected.connect(func():
		print(JSON.stringify({"dropped": lives}))
		quit(1))

func _connected():
	connected = true
	print(JSON.stringify({"connected": mp.get_unique_id()}))

func _process(_delta):
	if Time.get_ticks_msec() > deadline:
		print(JSON.stringify({"timeout": lives}))
		quit(1)
		return false
	if not connected:
		return false
	# Twenty lives a frame: a node made, called from and freed, twenty times over.
	for _i in 20:
		if lives == wanted:
			print(JSON.stringify({"lives": lives}))
			quit(0)
			return false
		var game := Node.new()
		game.name = "Game"
		game.set_script(game_script)
		root.add_child(game)
		lives += 1
		game.rpc_id(1, "ping", lives)
		root.remove_child(game)
		game.free()
	return false
