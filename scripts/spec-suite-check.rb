# frozen_string_literal: true

# Checks rspec-scout's spec tools against a real app's RSpec suite. Run it on a COPY of
# the app (it writes specs and metadata), after creating the metadata:
#
#   rspec-scout discover --all --root APP && rspec-scout analyze --from-metadata --root APP
#
#   ruby scripts/spec-suite-check.rb outline BIN APP
#     Every spec/**/*_spec.rb outlines (no blank outline) and every `describe '#m'`/'.m'
#     line is a method block that `outline --only` finds (or lies inside the block of the
#     same method, which it is part of).
#   ruby scripts/spec-suite-check.rb patch BIN APP [--new] [--pending]
#     Runs `skeleton` with every choice (ask, beside, skip, overwrite) into every spec:
#     with the metadata whose spec_path it is, else the metadata of the class its first
#     describe names, else a model's. Checks that no line is lost without overwrite, that
#     the change is a pure insertion, that `ruby -c` accepts the result (pipeline
#     placeholders filled first) and that strip-markers leaves a pure insertion.
#     --new treats every method as new; --pending writes pending placeholders.
#   ruby scripts/spec-suite-check.rb suite BIN APP
#     The pipeline on the app's own suite: `skeleton` over the whole plan with pending
#     placeholders, twice. No hand-written spec loses a line, every spec written parses,
#     no method gets a generated block beside its hand-written one without a question,
#     and the second run changes nothing.
#   ruby scripts/spec-suite-check.rb pending BIN APP
#     Empties spec/, writes a pending skeleton for every metadata file, checks each with
#     `ruby -c`, then runs them all with RSpec against stub constants (every example must
#     be pending, none failing).
#
# Prints counts; exits 1 when a check fails.

require "fileutils"
require "open3"
require "tmpdir"
require "json"

mode, bin, app, *flags = ARGV
abort "usage: spec-suite-check.rb outline|patch|suite|pending BIN APP [--new] [--pending]" unless bin && app
bin = File.expand_path(bin)
Dir.chdir(app)

def run(*cmd)
  out, err, status = Open3.capture3(*cmd)
  [out, err, status.exitstatus]
end

def ruby_c_ok?(text)
  Dir.mktmpdir do |dir|
    path = File.join(dir, "check.rb")
    File.write(path, text)
    _, _, code = run("ruby", "-c", path)
    code.zero?
  end
end

def fill(text)
  text.gsub("{SETUP_CODE}", "nil").gsub("{EXPECTATION}", "expect(true).to be(true)")
      .gsub("{COMMON_SETUP}", "nil").gsub("{THRESHOLD_VALUE}", "1")
end

# Every line of `before` is in `after`, in order, and nothing else changed: the longest
# common subsequence of lines is all of `before`.
def pure_insertion?(before, after)
  a = before.split("\n", -1)
  b = after.split("\n", -1)
  i = 0
  b.each { |line| i += 1 if i < a.size && a[i] == line }
  return false unless i == a.size

  # A greedy match can pair a line with an inserted copy; confirm with an LCS length.
  prev = Array.new(b.size + 1, 0)
  a.each do |x|
    cur = [0]
    b.each_with_index { |y, j| cur << (x == y ? prev[j] + 1 : [prev[j + 1], cur[j]].max) }
    prev = cur
  end
  prev.last == a.size
end

specs = Dir.glob("spec/**/*_spec.rb").sort
failures = []
counts = Hash.new(0)

case mode
when "outline"
  pattern = /^\s*(?:RSpec\.)?describe[\s(]+(["'])([#.][A-Za-z_]\w*[?!=]?)\1/
  specs.each do |spec|
    expected = []
    comment = false
    File.readlines(spec, chomp: true).each_with_index do |line, i|
      comment = true if line.start_with?("=begin")
      if line.start_with?("=end")
        comment = false
        next
      end
      next if comment

      m = pattern.match(line)
      expected << [i + 1, m[2]] if m
    end
    out, _, code = run(bin, "outline", spec, "--format", "json")
    failures << "#{spec}: exit #{code}" unless code.zero?
    answer = JSON.parse(out)
    counts["specs"] += 1
    counts["no RSpec blocks"] += 1 if answer["tree"].empty?
    got = answer["methods"].map { |m| [m["line"], m["method"]] }
    counts["describe '#m' lines"] += expected.size
    # A `describe '#m'` nested in the block of `#m` is part of that block.
    nested = (expected - got).select do |line, d|
      answer["methods"].any? { |m| m["method"] == d && m["line"] < line && line <= m["end_line"] }
    end
    counts["nested repeats of a method's block"] += nested.size
    (expected - got - nested).each { |e| failures << "#{spec}: #{e.inspect} not a method block" }
    counts["method blocks without a class"] += answer["methods"].count { |m| m["method_id"].nil? }
    answer["methods"].each do |m|
      next unless m["method_id"]

      text, _, code = run(bin, "outline", spec, "--only", m["method_id"])
      failures << "#{spec}: --only #{m['method_id']}" unless code.zero? && text.include?(m["method"])
    end
  end
when "patch"
  as_new = flags.include?("--new")
  pending = flags.include?("--pending")
  metas = Dir.glob("tmp/rspec_metadata/*.yml").sort.filter_map do |path|
    text = File.read(path)
    spec = text[/^spec_path: (.*)$/, 1]
    klass = text[/^class_name: (.*)$/, 1]
    source = text[/^source_file: (.*)$/, 1]
    next unless spec && klass && source && text.include?("methods:")

    File.write(path, text.gsub(/method_mode: (unchanged|modified)/, "method_mode: new")) if as_new
    { path: path, spec: spec.strip, class: klass.strip, model: source.start_with?("app/models/") }
  end
  fallback = metas.find { |m| m[:model] } || metas.first
  specs.each do |spec|
    original = File.binread(spec).force_encoding("UTF-8")
    head = original[/^\s*(?:RSpec\.)?describe\s+([A-Z][\w:]*)/, 1]
    meta = metas.find { |m| m[:spec] == spec } || metas.find { |m| m[:class] == head } || fallback
    counts["specs"] += 1
    %w[ask beside skip overwrite].each do |choice|
      File.binwrite(spec, original)
      cmd = [bin, "skeleton", meta[:path], "--spec", spec, "--format", "json"]
      cmd += ["--placeholders", "pending"] if pending
      unless choice == "ask"
        cmd += ["--on-hand-written", choice, "--controllers-legacy", "keep"]
        cmd += ["--on-new-conflict", choice == "beside" ? "skip" : choice] if as_new
      end
      out, _, code = run(*cmd)
      after = File.binread(spec).force_encoding("UTF-8")
      counts["#{choice}: exit #{code}"] += 1
      if code == 2
        JSON.parse(out)["decisions"].each { |d| counts["#{choice}: decision #{d['decision']}"] += 1 }
        failures << "#{spec} #{choice}: written while asking" unless after == original
        next
      end
      unless code.zero?
        failures << "#{spec} #{choice}: exit #{code}: #{JSON.parse(out)['error']}"
        next
      end
      next if after == original

      counts["#{choice}: changed"] += 1
      if choice != "overwrite" && !pure_insertion?(original, after)
        failures << "#{spec} #{choice}: a line was lost or changed"
      end
      failures << "#{spec} #{choice}: ruby -c" unless ruby_c_ok?(pending ? after : fill(after))
      run(bin, "strip-markers", spec)
      stripped = File.binread(spec).force_encoding("UTF-8")
      failures << "#{spec} #{choice}: markers left" if stripped.include?("rspec-testing:")
      if choice != "overwrite" && !pure_insertion?(original, stripped)
        failures << "#{spec} #{choice}: strip round trip"
      end
    end
    File.binwrite(spec, original)
  end
when "suite"
  # The real flow on a hand-written suite: skeleton over the whole plan with pending
  # placeholders and the default answers (every hand-written block is a question), twice.
  # No spec loses or changes a line, every spec written parses, no method gets a generated
  # block beside a hand-written one without a question, and the second run changes nothing.
  before = specs.to_h { |spec| [spec, File.binread(spec).force_encoding("UTF-8")] }
  cmd = [bin, "skeleton", "--placeholders", "pending", "--test-framework", "rspec",
         "--controllers-legacy", "keep", "--answer", "full", "--format", "json"]
  out, _, code = run(*cmd)
  counts["first run: exit #{code}"] += 1
  answer = JSON.parse(out)
  answer["results"].each { |r| counts["first run: #{r['status']}"] += 1 }
  answer["results"].select { |r| r["status"] == "error" }.each do |r|
    failures << "#{r['source_file']}: #{r['skip_reason']}"
  end
  after = Dir.glob("spec/**/*_spec.rb").sort.to_h { |spec| [spec, File.binread(spec).force_encoding("UTF-8")] }
  after.each do |spec, text|
    old = before[spec]
    if old.nil?
      counts["specs created"] += 1
    elsif old != text
      counts["hand-written specs patched"] += 1
      failures << "#{spec}: a line was lost or changed" unless pure_insertion?(old, text)
    else
      next
    end
    failures << "#{spec}: ruby -c" unless ruby_c_ok?(text)
    # A method's block twice: a generated block beside a hand-written one of the same
    # method (the question was not asked) or two generated blocks.
    descriptors = text.scan(/^\s*(?:RSpec\.)?(?:describe|context)[\s(]+(["'])([#.][A-Za-z_]\w*[?!=]?)\1/).map(&:last)
    generated = text.scan(/rspec-testing:method_begin method="([^"]+)"/).flatten
    # Two classes of one file may each have `#message`: a method is its id.
    ids = text.scan(/rspec-testing:method_begin method="[^"]+" method_id="([^"]+)"/).flatten
    ids.tally.each { |d, n| failures << "#{spec}: #{d} generated #{n} times" if n > 1 }
    (old || "").scan(/^\s*(?:RSpec\.)?(?:describe|context)[\s(]+(["'])([#.][A-Za-z_]\w*[?!=]?)\1/).map(&:last).uniq.each do |d|
      failures << "#{spec}: #{d} has a hand-written block and now a generated one" if generated.include?(d)
    end
    counts["method blocks in changed specs"] += descriptors.size
  end
  before.each_key { |spec| failures << "#{spec}: deleted" unless after.key?(spec) }
  out2, _, code2 = run(*cmd)
  counts["second run: exit #{code2}"] += 1
  again = Dir.glob("spec/**/*_spec.rb").sort.to_h { |spec| [spec, File.binread(spec).force_encoding("UTF-8")] }
  again.each { |spec, text| failures << "#{spec}: changed by the second run" unless after[spec] == text }
  JSON.parse(out2)["results"].each { |r| counts["second run: #{r['status']}"] += 1 }
when "pending"
  FileUtils.rm_rf("spec")
  metas = Dir.glob("tmp/rspec_metadata/*.yml").sort
  metas.each do |meta|
    out, _, code = run(bin, "skeleton", meta, "--placeholders", "pending", "--format", "json")
    counts["metadata files"] += 1
    code.zero? ? counts["skeletons written"] += 1 : failures << "#{meta}: #{out[0, 300]}"
  end
  written = Dir.glob("spec/**/*_spec.rb").sort
  counts["spec files"] = written.size
  written.each do |spec|
    ruby_c_ok?(File.read(spec)) ? counts["ruby -c ok"] += 1 : failures << "#{spec}: ruby -c"
  end
  Dir.mktmpdir do |stubs|
    # Every constant a generated spec names is an empty class: the run checks the
    # skeletons, not the app.
    File.write(File.join(stubs, "stub_constants.rb"),
               "class Module\n  def const_missing(name) = const_set(name, Class.new)\nend\n")
    %w[rails_helper spec_helper].each { |h| File.write(File.join(stubs, "#{h}.rb"), "require 'stub_constants'\n") }
    out, _, code = run("ruby", "-S", "rspec", "-I", stubs, "--format", "progress", *written)
    summary = out[/^\d+ examples?, .*$/]
    puts "rspec: #{summary} (exit #{code})"
    failures << "rspec: #{summary}" unless code.zero? && summary =~ /^(\d+) examples?, 0 failures, \1 pending$/
    failures << "rspec: errors outside examples" if out.include?("occurred outside of examples")
  end
else
  abort "unknown mode #{mode.inspect}: outline, patch, suite or pending"
end

counts.sort.each { |k, v| puts "#{k}: #{v}" }
failures.first(40).each { |f| puts "FAIL #{f}" }
puts "failures: #{failures.size}"
exit(failures.empty? ? 0 : 1)
