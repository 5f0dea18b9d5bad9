# A bot player of multiplayer/examples/arena.rs: joins, wanders, chats and tags
# whoever comes within reach, printing what the server tells it. With a window it
# draws the field; the arrow keys steer it. Settings from the environment:
# ARENA_PORT (9080), ARENA_TRANSPORT (ws or enet), ARENA_NAME, ARENA_SECONDS (60).
extends Node2D

const LINES := ["hi all", "gg", "over here!", "tag me if you can", "brb"]

var players := {}  # id -> {"name", "pos", "score"}
var me := 0
var pos := Vector2(50, 50)
var goal := Vector2(50, 50)
var rng := RandomNumberGenerator.new()
var clock := 0.0
var next_move := 0.0
var next_chat := 1.0
var seconds := 60.0

func env(key: String, default: String) -> String:
	var v := OS.get_environment(key)
	return v if v != "" else default

func _ready():
	rng.randomize()
	seconds = float(env("ARENA_SECONDS", "60"))
	var port := int(env("ARENA_PORT", "9080"))
	var peer: MultiplayerPeer
	var err: int
	if env("ARENA_TRANSPORT", "ws") == "enet":
		peer = ENetMultiplayerPeer.new()
		err = peer.create_client("127.0.0.1", port)
	else:
		peer = WebSocketMultiplayerPeer.new()
		err = peer.create_client("ws://127.0.0.1:%d" % port)
	if err != OK:
		print("arena: cannot connect (%d)" % err)
		get_tree().quit(1)
		return
	multiplayer.multiplayer_peer = peer
	multiplayer.connected_to_server.connect(func(): rpc_id(1, "join", env("ARENA_NAME", "bot%d" % (rng.randi() % 1000))))
	multiplayer.server_disconnected.connect(func(): print("arena: server gone"); get_tree().quit(0))

# Calls to the server (it runs them; here they only need to exist, with the same names).
@rpc("any_peer") func join(_name: String): pass
@rpc("any_peer") func move(_p: Vector2): pass
@rpc("any_peer") func say(_text: String): pass
@rpc("any_peer") func tag(_other: int): pass

# Calls from the server.
@rpc func welcome(id: int, everyone: Array):
	me = id
	for p in everyone:
		players[p[0]] = {"name": p[1], "pos": p[2], "score": p[3]}
	players[me] = {"name": "me", "pos": pos, "score": 0}
	print("arena: I am %d; %d others here" % [me, everyone.size()])

@rpc func joined(id: int, name: String):
	players[id] = {"name": name, "pos": Vector2(50, 50), "score": 0}
	print("arena: %s joined" % name)

@rpc func moved(id: int, p: Vector2):
	if players.has(id):
		players[id]["pos"] = p

@rpc func chat(id: int, text: String):
	var who = players[id]["name"] if players.has(id) else str(id)
	print("arena: <%s> %s" % [who, text])

@rpc func scored(id: int, points: int):
	if players.has(id):
		players[id]["score"] = points
		print("arena: %s has %d points" % [players[id]["name"], points])

@rpc func left(id: int):
	if players.has(id):
		print("arena: %s left" % players[id]["name"])
		players.erase(id)

func _process(delta: float):
	clock += delta
	if clock > seconds:
		get_tree().quit(0)
		return
	if me == 0:
		return
	var steer := Input.get_vector("ui_left", "ui_right", "ui_up", "ui_down")
	if steer != Vector2.ZERO:
		goal = pos + steer * 10
	elif pos.distance_to(goal) < 1:
		goal = Vector2(rng.randf_range(0, 100), rng.randf_range(0, 100))
	pos = pos.move_toward(goal, 30 * delta).clamp(Vector2.ZERO, Vector2(100, 100))
	players[me]["pos"] = pos
	if clock >= next_move:
		next_move = clock + 0.1
		rpc_id(1, "move", pos)
		for id in players:
			if id != me and players[id]["pos"].distance_to(pos) <= 10:
				rpc_id(1, "tag", id)
	if clock >= next_chat:
		next_chat = clock + rng.randf_range(1.0, 3.0)
		rpc_id(1, "say", LINES[rng.randi() % LINES.size()])
	queue_redraw()

func _draw():
	for id in players:
		var p: Vector2 = players[id]["pos"] * 4
		draw_circle(p, 8, Color.GOLD if id == me else Color.CORNFLOWER_BLUE)
