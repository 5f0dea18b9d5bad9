# A Godot 3 client for examples/multiplayer_server.rs (Rust, godot_bin).
#
# Every message is one Variant framed by PacketPeerStream over StreamPeerTCP. The
# server's serde enums arrive as one-entry dictionaries, {"Welcome": {"id": 1}}, and
# go out the same way; a unit variant is its name, "Leave".
#
# The demo: join; when another player joins, greet them and send our position; when
# the last other player leaves, leave too. Every message received is printed as
# "RECV <var2bytes hex>", which tests/live_godot.rs checks byte for byte.
# The environment can set PORT and PLAYER_NAME.
extends Node

export var host := "127.0.0.1"
export var port := 4242
export var player_name := "Godot3"

var tcp := StreamPeerTCP.new()
var peer := PacketPeerStream.new()
var joined := false
var my_id := -1
var others := {}


func _ready() -> void:
	port = int(OS.get_environment("PORT")) if OS.has_environment("PORT") else port
	player_name = OS.get_environment("PLAYER_NAME") if OS.has_environment("PLAYER_NAME") else player_name
	peer.stream_peer = tcp
	var err := tcp.connect_to_host(host, port)
	if err != OK:
		printerr("cannot connect to %s:%d: error %d" % [host, port, err])
		get_tree().quit(1)


func _process(_delta: float) -> void:
	var status := tcp.get_status()
	if status == StreamPeerTCP.STATUS_CONNECTED and not joined:
		peer.put_var({"Join": {"name": player_name}})
		joined = true
	while peer.get_available_packet_count() > 0:
		handle(peer.get_var())
	if status == StreamPeerTCP.STATUS_ERROR or (joined and status == StreamPeerTCP.STATUS_NONE):
		printerr("connection to the server lost")
		get_tree().quit(1)


func handle(msg) -> void:
	print("RECV ", var2bytes(msg).hex_encode())
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
			peer.put_var({"Chat": {"text": "hello " + body["name"]}})
			var where := Vector3(1, 2.5, -3)
			var facing := Quat(0, 0.6, 0, 0.8)
			peer.put_var({"Move": {"position": where, "rotation": facing}})
		"Chat":
			print("chat from %d: %s" % [body["from"], body["text"]])
		"Moved":
			var position: Vector3 = body["position"]
			var rotation: Quat = body["rotation"]
			print("player %d is at %s facing %s" % [body["id"], position, rotation])
		"Left":
			if body["id"] == my_id:
				print("DONE")
				get_tree().quit()
				return
			others.erase(body["id"])
			if others.empty():
				peer.put_var("Leave")
