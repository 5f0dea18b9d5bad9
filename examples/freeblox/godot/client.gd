# A Freeblox client in Godot 4: the game's own packets, written and read with
# StreamPeerBuffer field by field as the protocol table says (a u8 id; str0 = UTF-8
# and a NUL; vec3 = 3 floats; quat = x y z w; little endian), one packet per
# WebSocket message.
#
# It plays a short session against the server (examples/freeblox: AUTH, the world
# stream, KEEPALIVE, chat, movement), then runs the conformance check: the server
# sends one packet of every type, which must read back to SAMPLES, and this client
# sends SAMPLES, which the server compares with its own. Prints "FREEBLOX OK" and
# exits 0, or "FREEBLOX FAIL: ..." and exits 1. Gives up after 20 s without a packet.
#
#   FREEBLOX_PORT=8910 godot4 --headless --path examples/freeblox/godot
extends Node

const LAYOUT := [
	["str0", "str0", "u8"],  # 0 AUTH: player uuid, session token, client version
	[],  # 1 KEEPALIVE
	["str0"],  # 2 STREAM_START: world name
	["str0", "str0", "str0", "rest"],  # 3 STREAM_ASSET: path, name, type, data
	["str0", "str0", "str0", "str0"],  # 4 STREAM_OBJECT: uuid, parent, type, JSON
	["str0"],  # 5 STREAM_DESTROY: uuid
	["str0", "str0", "str0"],  # 6 STREAM_EVENT: uuid, event, JSON
	["str0"],  # 7 STREAM_FINISH: world name
	["str0", "vec3", "quat", "vec3", "vec3"],  # 8 STREAM_TRANSFORM
	["str0", "str0", "str0"],  # 9 STREAM_CHAT: player, chat type, message
	["list"],  # 10 PLAYER_LIST: u32 count, then (uuid, name) pairs
	["str0", "str0"],  # 11 PLAYER_JOIN: uuid, name
	["str0", "str0", "str0"],  # 12 PLAYER_QUIT: uuid, name, reason
	["str0", "str0", "vec3", "quat", "str0", "str0"],  # 13 PLAYER_CHARACTER
	["str0", "vec3", "vec3", "bool"],  # 14 PLAYER_MOVEMENT: uuid, velocity, look-at, jump
	["str0", "str0", "str0"],  # 15 PLAYER_CHAT: player, chat type, message
	["str0", "str0", "str0", "str0"],  # 16 PLAYER_EVENT: player, object, event, JSON
	["str0"],  # 17 ERROR: error type
]

# One packet of every type: the server's samples() (examples/freeblox/server.rs).
var SAMPLES := [
	["p-1", "tøken", 1],
	[],
	["wörld"],
	["res://rock.mesh", "rock", "Mesh", PackedByteArray([0, 1, 2, 255])],
	["o-1", "", "Part", "{\"size\":[1,2,3]}"],
	["o-1"],
	["o-2", "touched", "{\"by\":\"p-1\"}"],
	["wörld"],
	["o-2", Vector3(1.5, -2, 0.25), Quaternion(0, 0.5, 0, 0.75), Vector3(0, -9.75, 0), Vector3(0.125, 0, 0)],
	["p-1", "global", "hi ✓"],
	[[["p-1", "Ann"], ["p-2", "Bø"]]],
	["p-2", "Bø"],
	["p-2", "Bø", "left"],
	["p-1", "Ann", Vector3(4, 0, -4), Quaternion(0, 0, 0, 1), "c-1", "{\"hat\":true}"],
	["p-1", Vector3(1, 0, -1), Vector3(0, 0, 1), true],
	["p-1", "team", "go"],
	["p-1", "o-2", "use", "{}"],
	["none"],
]

const ME := "9b2f-godot-client"
const WAIT_MS := 20000

var ws := WebSocketPeer.new()
var failed := false


func _ready():
	run()


func fail(why: String):
	if not failed:
		failed = true
		print("FREEBLOX FAIL: ", why)
		get_tree().quit(1)


func check(ok: bool, what: String):
	if not ok:
		fail(what)


func put_str0(s: StreamPeerBuffer, v: String):
	s.put_data(v.to_utf8_buffer())
	s.put_u8(0)


func encode(id: int, fields: Array) -> PackedByteArray:
	var s := StreamPeerBuffer.new()
	s.put_u8(id)
	for i in LAYOUT[id].size():
		var v = fields[i]
		match LAYOUT[id][i]:
			"str0":
				put_str0(s, v)
			"u8":
				s.put_u8(v)
			"bool":
				s.put_u8(1 if v else 0)
			"vec3":
				s.put_float(v.x); s.put_float(v.y); s.put_float(v.z)
			"quat":
				s.put_float(v.x); s.put_float(v.y); s.put_float(v.z); s.put_float(v.w)
			"rest":
				s.put_data(v)
			"list":
				s.put_u32(v.size())
				for pair in v:
					put_str0(s, pair[0])
					put_str0(s, pair[1])
	return s.data_array


func get_str0(s: StreamPeerBuffer) -> String:
	var bytes := s.data_array
	var start := s.get_position()
	var end := start
	while end < bytes.size() and bytes[end] != 0:
		end += 1
	if end >= bytes.size():
		fail("a string without its NUL")
		return ""
	s.seek(end + 1)
	return bytes.slice(start, end).get_string_from_utf8()


# [id, fields] of a packet, or [] when it does not fit the table.
func decode(bytes: PackedByteArray) -> Array:
	var s := StreamPeerBuffer.new()
	s.data_array = bytes
	var id := s.get_u8()
	if id >= LAYOUT.size():
		fail("unknown packet id %d" % id)
		return []
	var fields := []
	for kind in LAYOUT[id]:
		match kind:
			"str0":
				fields.append(get_str0(s))
			"u8":
				fields.append(s.get_u8())
			"bool":
				fields.append(s.get_u8() == 1)
			"vec3":
				fields.append(Vector3(s.get_float(), s.get_float(), s.get_float()))
			"quat":
				fields.append(Quaternion(s.get_float(), s.get_float(), s.get_float(), s.get_float()))
			"rest":
				fields.append(s.get_data(s.get_available_bytes())[1])
			"list":
				var pairs := []
				for n in s.get_u32():
					pairs.append([get_str0(s), get_str0(s)])
				fields.append(pairs)
	if s.get_available_bytes() != 0:
		fail("%d bytes left after packet %d" % [s.get_available_bytes(), id])
	return [id, fields]


func send(id: int, fields: Array):
	ws.send(encode(id, fields))


# The next packet, polling once a frame; [] after WAIT_MS without one.
func receive() -> Array:
	var until := Time.get_ticks_msec() + WAIT_MS
	while not failed and Time.get_ticks_msec() < until:
		ws.poll()
		if ws.get_available_packet_count() > 0:
			return decode(ws.get_packet())
		if ws.get_ready_state() == WebSocketPeer.STATE_CLOSED:
			fail("the server closed the connection")
			return []
		await get_tree().process_frame
	fail("no packet within %d ms" % WAIT_MS)
	return []


func expect(id: int, fields: Array, what: String):
	var p := await receive()
	check(p == [id, fields], "%s: want %s, got %s" % [what, [id, fields], p])


func run():
	var port := OS.get_environment("FREEBLOX_PORT")
	if port == "":
		port = "8910"
	ws.connect_to_url("ws://127.0.0.1:%s" % port)
	var until := Time.get_ticks_msec() + WAIT_MS
	while ws.get_ready_state() != WebSocketPeer.STATE_OPEN:
		ws.poll()
		if ws.get_ready_state() == WebSocketPeer.STATE_CLOSED or Time.get_ticks_msec() > until:
			fail("cannot connect to ws://127.0.0.1:%s" % port)
			return
		await get_tree().process_frame

	# The session.
	send(0, [ME, "secret", 1])
	var ids := []
	var world := ""
	var players := []
	for n in 10:
		var p := await receive()
		if failed:
			return
		ids.append(p[0])
		match p[0]:
			2:
				world = p[1][0]
			10:
				players = p[1][0]
			13:
				check(p[1][0] == ME, "PLAYER_CHARACTER for me")
	check(ids == [2, 3, 4, 4, 4, 8, 6, 7, 10, 13], "the world stream: %s" % [ids])
	check(players.has([ME, "player-9b2f-god"]), "PLAYER_LIST holds me: %s" % [players])
	print("world %s streamed, %d players online" % [world, players.size()])
	send(1, [])
	await expect(1, [], "KEEPALIVE")
	send(15, [ME, "global", "hello from Godot ✓"])
	await expect(9, [ME, "global", "hello from Godot ✓"], "chat")
	send(14, [ME, Vector3(1, 0, 0.5), Vector3(0, 0, 1), true])

	# The conformance check, both ways.
	send(16, [ME, "", "conformance", "{}"])
	for id in SAMPLES.size():
		await expect(id, SAMPLES[id], "sample %d from the server" % id)
		if failed:
			return
	for id in SAMPLES.size():
		send(id, SAMPLES[id])
	await expect(16, [ME, "", "conformance", "ok"], "the server's verdict on our samples")
	if failed:
		return
	print("FREEBLOX OK: %d packet types both ways, session of %s" % [SAMPLES.size(), ME])
	ws.close()
	var closing := Time.get_ticks_msec() + 2000
	while ws.get_ready_state() != WebSocketPeer.STATE_CLOSED and Time.get_ticks_msec() < closing:
		ws.poll()
		await get_tree().process_frame
	get_tree().quit(0)
