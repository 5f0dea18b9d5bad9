# Named raw packets as Godot 3 (3.6) writes them with StreamPeerBuffer, for
# tests/raw.rs. scripts/gen-raw-fixtures.sh writes the output to
# tests/fixtures/raw/godot3.6.jsonl: one line a packet, {"name": ..., "hex": ...}.
extends SceneTree

var s := StreamPeerBuffer.new()

func out(name: String):
	print(to_json({"name": name, "hex": s.data_array.hex_encode()}))
	s.clear()
	s.big_endian = false

func _init():
	s.put_u8(255); s.put_8(-128); s.put_u16(65535); s.put_16(-2); s.put_u32(4294967295); s.put_32(-3); s.put_u64(-1); s.put_64(-9223372036854775807 - 1); out("ints_le")
	s.big_endian = true
	s.put_u8(255); s.put_8(-128); s.put_u16(258); s.put_16(-2); s.put_u32(16909060); s.put_32(-3); s.put_u64(72623859790382856); s.put_64(-4); out("ints_be")
	s.big_endian = true
	s.put_float(1.5); s.put_double(-0.1); out("floats_be")
	s.big_endian = true
	s.put_var(5); s.put_utf8_string("hé"); s.put_string("hi"); s.put_var("x"); out("var_and_strings_be")
	s.put_utf8_string("hé€😀"); s.put_string("hi!"); out("strings_le")
	s.put_string("hé"); out("put_string_latin1")
	s.put_string("h€"); out("put_string_above_latin1")
	s.put_var(Vector3(1, 2, 3)); s.put_var([1, "a"]); out("vars")
	quit()
