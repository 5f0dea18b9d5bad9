# Godot 4 orders StringNames inside Arrays by their addresses, not their text: the
# same dictionary, its StringNames made in two orders, prints its keys in two orders
# (tests/engine_divergences.rs). Top-level StringName keys compare as strings.
#
#   godot4 --headless --no-header -s tests/oracle/stringname_order4.gd
#
# Prints two lines, var_to_str of {[[&"sn_0"]]: 0, ..., [[&"sn_5"]]: 5} on one line,
# the StringNames made first to last, then last to first.
extends SceneTree

func build(order):
	var names = {}
	for i in order:
		names[i] = StringName("sn_%d" % i)
	var d = {}
	for i in 6:
		d[[[names[i]]]] = i
	return var_to_str(d).replace("\n", " ")

func _init():
	print(build([0, 1, 2, 3, 4, 5]))
	print(build([5, 4, 3, 2, 1, 0]))
	quit()
