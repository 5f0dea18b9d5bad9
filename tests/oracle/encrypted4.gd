# Encrypted files in Godot 4 (tests/encrypted.rs): FileAccess.open_encrypted_with_pass
# and FileAccess.open_encrypted. Godot 3's encrypted3.gd, in Godot 4 spelling.
#
#   godot4 --headless --no-header --path DIR -s encrypted4.gd
#
# Environment: ENC_OP (write | read), ENC_FILE (a path), and either ENC_PASS (a
# password) or ENC_KEY (32 ASCII characters, taken as the key bytes).
#   write  store_var()s the first ENC_COUNT (default: all) of values() into ENC_FILE,
#          encrypted
#   read   opens ENC_FILE and get_var()s until the end of the plaintext
# One JSON line per value on stdout: {"hex": var_to_bytes hex, "text": UTF-8 hex of
# var_to_str}; then {"err": the open error code, "count": the values}.
extends SceneTree

func values() -> Array:
	return [
		{"pos": Vector3(1.5, -2, 3.25), "name": "Zoë", "hp": 42, "tags": PackedStringArray(["a", "bé"])},
		"héllo wörld ✓",
		1234567890123,
		PackedStringArray(["x", "", "yz"]),
		0.1,
		[true, null, Color(1, 0, 0.5, 1), Vector2(-1, 2)],
		PackedByteArray([0, 1, 2, 255]),
	]

func emit(v) -> void:
	print(JSON.stringify({"hex": var_to_bytes(v).hex_encode(), "text": var_to_str(v).to_utf8_buffer().hex_encode()}))

func open(path: String, mode: FileAccess.ModeFlags) -> FileAccess:
	var key := OS.get_environment("ENC_KEY")
	if key != "":
		return FileAccess.open_encrypted(path, mode, key.to_ascii_buffer())
	return FileAccess.open_encrypted_with_pass(path, mode, OS.get_environment("ENC_PASS"))

func _init():
	var path := OS.get_environment("ENC_FILE")
	var n := 0
	var write := OS.get_environment("ENC_OP") == "write"
	var f := open(path, FileAccess.WRITE if write else FileAccess.READ)
	var err := FileAccess.get_open_error()
	if f != null:
		if write:
			var count := values().size()
			if OS.get_environment("ENC_COUNT") != "":
				count = int(OS.get_environment("ENC_COUNT"))
			for v in values():
				if n == count:
					break
				f.store_var(v)
				emit(v)
				n += 1
		else:
			while f.get_position() < f.get_length():
				emit(f.get_var())
				n += 1
		f.close()
	print(JSON.stringify({"err": err, "count": n}))
	quit()
