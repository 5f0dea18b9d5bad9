# A Godot 4 client for examples/multiplayer_server.rs (Rust, godot_bin); start the
# server with the dialect "godot4" (see the server's header).
#
# Every message is one Variant framed by PacketPeerStream over StreamPeerTCP. The
# server's serde enums arrive as one-entry dictionaries, {"Welcome": {"id": 1}}, and
# go out the same way; a unit variant is its name, "Leave".
#
# The demo: join; when another player joins, greet them ("hello <name>") and send our
# position; when a player we did not greet first greets us and then moves, answer, send
# our position and leave; when the last other player leaves, leave too. So two clients
# play a whole session: the first greets, the second answers and leaves, then the first
# leaves.
#
# Output, one stdout line per message, in the order sent and received:
#   SEND <text>    a message this client sent
#   RECV <text>    a message this client received
# where <text> is var_to_str of the message on one line: every backslash is written as \\,
# every newline as \n and every carriage return as \r, and nothing else changes, so
# undoing those three escapes gives var_to_str's text exactly. tests/live_godot.rs checks
# every such line. The other lines ("players: ...", "chat from ...", "DONE" when this
# player has left) are for people.
#
# Errors go to stderr, one line, with exit code 1: "cannot reach the server at
# <host>:<port>" when there is no connection after CONNECT_TIMEOUT seconds (or it is
# refused); "no answer from the server at <host>:<port> (is it started with the dialect
# godot4?)" when there is no Welcome ANSWER_TIMEOUT seconds after joining (a server for
# the other engine ignores every message); "connection to the server lost" when it drops.
# The environment can set PORT and PLAYER_NAME.
extends Node

const CONNECT_TIMEOUT := 5.0
const ANSWER_TIMEOUT := 5.0

@export var host := "127.0.0.1"
@export var port := 4242
@export var player_name := "Godot4"

var tcp := StreamPeerTCP.new()
var peer := PacketPeerStream.new()
var started_msec := 0
var joined := false
var my_id := -1
var others := {}
var greeted := {}
var to_answer := {}


func _ready() -> void:
	port = int(OS.get_environment("PORT")) if OS.has_environment("PORT") else port
	player_name = OS.get_environment("PLAYER_NAME") if OS.has_environment("PLAYER_NAME") else player_name
	peer.stream_peer = tcp
	started_msec = Time.get_ticks_msec()
	if tcp.connect_to_host(host, port) != OK:
		fail("cannot reach the server at %s:%d" % [host, port])


func _process(_delta: float) -> void:
	tcp.poll()
	var status := tcp.get_status()
	if not joined:
		if status == StreamPeerTCP.STATUS_CONNECTED:
			joined = true
			started_msec = Time.get_ticks_msec()
			send({"Join": {"name": player_name}})
		elif status != StreamPeerTCP.STATUS_CONNECTING or Time.get_ticks_msec() - started_msec > CONNECT_TIMEOUT * 1000:
			fail("cannot reach the server at %s:%d" % [host, port])
		return
	while is_processing() and peer.get_available_packet_count() > 0:
		handle(peer.get_var())
	if is_processing() and status != StreamPeerTCP.STATUS_CONNECTED:
		fail("connection to the server lost")
	elif is_processing() and my_id == -1 and Time.get_ticks_msec() - started_msec > ANSWER_TIMEOUT * 1000:
		fail("no answer from the server at %s:%d (is it started with the dialect godot4?)" % [host, port])


# var_to_str on one line (see the header).
func text(value) -> String:
	return var_to_str(value).replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


func send(msg) -> void:
	if not is_processing():
		return
	print("SEND ", text(msg))
	if peer.put_var(msg) != OK:
		fail("connection to the server lost")


func handle(msg) -> void:
	print("RECV ", text(msg))
	if typeof(msg) != TYPE_DICTIONARY or msg.size() != 1:
		return
	var kind: String = msg.keys()[0]
	var body: Dictionary = msg[kind]
	match kind:
		"Welcome":
			my_id = body["id"]
		"PlayerList":
			for p in body["players"]:
				if p["id"] != my_id:
					others[p["id"]] = p["name"]
			print("players: ", others.values())
		"Joined":
			others[body["id"]] = body["name"]
			greeted[body["id"]] = true
			send({"Chat": {"text": "hello " + body["name"]}})
			send_position()
		"Chat":
			print("chat from %d: %s" % [body["from"], body["text"]])
			var sender: int = body["from"]
			if sender != my_id and not greeted.has(sender) and body["text"] == "hello " + player_name:
				to_answer[sender] = true
		"Moved":
			var position: Vector3 = body["position"]
			var rotation: Quaternion = body["rotation"]
			print("player %d is at %s facing %s" % [body["id"], position, rotation])
			var mover: int = body["id"]
			if to_answer.has(mover):
				to_answer.erase(mover)
				greeted[mover] = true
				send({"Chat": {"text": "hello " + others.get(mover, "")}})
				send_position()
				send("Leave")
		"Left":
			if body["id"] == my_id:
				print("DONE")
				quit(0)
				return
			others.erase(body["id"])
			if others.is_empty():
				send("Leave")


func send_position() -> void:
	send({"Move": {"position": Vector3(1, 2.5, -3), "rotation": Quaternion(0, 0.6, 0, 0.8)}})


func fail(message: String) -> void:
	printerr(message)
	quit(1)


func quit(code: int) -> void:
	set_process(false)
	tcp.disconnect_from_host()
	get_tree().quit(code)
