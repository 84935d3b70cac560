-- The conformance cases: each returns one string. record.py runs them on redis-server
-- (EVAL ... 0) and writes the answers to conformance.txt; tests/conformance.rs (host) and
-- tests/wasm.rs (headless Chromium) run them on kvlab-lua and compare. Only locals: Redis
-- refuses new globals. Chunk name as in Redis: @user_script.

-- case: tostring of doubles
local t = {0.1, 1e100, -0, 1/0, -1/0, 2^53, 1e15, 1e14, 123456789012345678, 12345678901234,
  123456789012345, 3.14159265358979, 100, -100.5, 2^63, 5e-324, 1.7976931348623157e308,
  0.1 + 0.2, 1/3, -1/3, 1e-5, 0.0001, 123e-310, 2^-1074, 1e21, 99999999999999.5, 0.5, 255/256}
local out = {}
for i, x in ipairs(t) do out[i] = tostring(x) end
return table.concat(out, ' ')
-- case: tostring of nan
return tostring(0/0) .. ' ' .. tostring(-(0/0)) .. ' ' .. tostring(math.huge - math.huge)
-- case: concat converts with %.14g
return 1/3 .. '|' .. 2^53 .. '|' .. -0 .. '|' .. 10/2
-- case: %.17g
local out = {}
for i, x in ipairs({0.1, 1/3, 2^53 + 1, 1e23, 5e-324, 123456789012345678, -0.0, 1.5, 2^-1022}) do
  out[i] = string.format('%.17g', x)
end
return table.concat(out, ' ')
-- case: string.format %d %i with flags
return string.format('[%d][%5d][%-5d][%05d][%+d][% d][%i][%.3d][%.0d][%+.3d][%-+6d][%d]',
  3.7, 42, 42, -42, 7, 7, -3, 7, 0, 7, 5, -0)
-- case: string.format %d out of range (x86_64's conversions)
return string.format('%d|%d|%d|%d|%d|%d', 2^40, 1e100, 0/0, -2^63 - 10000, 2^63, -2^53)
-- case: string.format %o %u %x %X
return string.format('[%o][%#o][%#o][%u][%x][%X][%#x][%#X][%08x][%-8X][%.4x][%#.0o]',
  8, 8, 0, 3000000000, 255, 255, 255, 0, 48879, 48879, 10, 0)
-- case: string.format unsigned out of range
return string.format('%x|%X|%o|%u|%x|%u', -1, 0/0, 2^64, 2^63, -2^63 - 4096, -1.5)
-- case: string.format %c
return string.format('[%c][%3c][%-3c]', 65, 66, 67) .. #string.format('%c', 0) .. string.format('%c', 256 + 72)
-- case: string.format %e %E
return string.format('[%e][%.3e][%E][%.0e][%#.0e][%12.4e][%-12.2e][%+e][% e][%012.3e][%e][%e]',
  12345.6789, 12345.6789, 0.000123, 5e10, 5, math.pi, -math.pi, 1, 1, -1.5, 0, 1e-300)
-- case: string.format %f
return string.format('[%f][%.0f][%.0f][%.0f][%10.3f][%-10.3f][%+.2f][% .1f][%010.2f][%#.0f][%.20f][%f]',
  1/3, 0.5, 1.5, 2.5, math.pi, math.pi, 2.345, 0.25, -3.14159, 3, 0.1, 1e20)
-- case: string.format %f of large numbers
return string.format('%f|%.2f|%.99f', 1e300, 2^70, 1/3)
-- case: string.format %g %G
return string.format('[%g][%g][%g][%g][%g][%G][%#g][%.3g][%.10g][%g][%.0g][%#.2g][%g][%-8g][%08g][%+G]',
  100000, 1e6, 0.0001, 0.00001, 123456789, 1e-10, 1, math.pi, math.pi, 0, 123, 99.5, 2^53, 1.5, -1.5, 1e100)
-- case: string.format inf and nan
return string.format('[%f][%5.1f][%05f][%-6g][%E][%G][%e][%+f][% g][%d]',
  1/0, -1/0, 0/0, 1/0, 1/0, -(0/0), -1/0, 1/0, 1/0, 1/0)
-- case: string.format %s
return string.format('[%s][%10s][%-10s][%.2s][%5.1s][%s][%s][%%][%s]', 'abc', 'abc', 'abc', 'abc', 'xyz', 12, 1.5, string.rep('x', 120):sub(1, 3))
-- case: string.format %s long and with zeros
local s = string.rep('ab', 100)
return #string.format('%s', s) .. '|' .. #string.format('%s', 'a\0b') .. '|' .. #string.format('%.99s', s)
-- case: string.format %q
return string.format('%q', 'a\nb\0c"d\\e\r\026')
-- case: string.format errors
local out = {}
for i, args in ipairs({{'%d', 'x'}, {'%y', 1}, {'%d'}, {'%123d', 1}, {'%10.123f', 1}, {'%s'}}) do
  out[i] = select(2, pcall(string.format, unpack(args)))
end
return table.concat(out, '|')
-- case: tonumber edge cases
local t = {' 0x10 ', '1e5', '  12  ', '0x', '1e', 'inf', 'nan', '1.5e308', '4.9e-324', '0x1p4',
  '1e400', '-0', '0x1.8', '  ', '', '1 2', '12abc', '-0x10', '.5', '5.', '.', 'INF', '-inf',
  'infinity', '0X1F', '1e+5', '1E-2', '\t7\n', '0x7fffffffffffffff', '1e-400', '2.4703282292062328e-324',
  '123456789012345678901234567890', '0x.8', 'nan(1)', '+5', '++5', '0b1', '1_000'}
local out = {}
for i, s in ipairs(t) do out[i] = tostring(tonumber(s)) end
return table.concat(out, ' ')
-- case: tonumber with a base
local t = {{'10', 16}, {'ff', 16}, {'zz', 36}, {'8', 8}, {'1e1', 16}, {' -7 ', 10}, {'ffffffffffffffffff', 16},
  {'777', 8}, {'11', 2}, {'', 10}, {'0x10', 16}, {'  ', 10}, {'7fffffff', 16}, {'100000000', 16}}
local out = {}
for i, a in ipairs(t) do out[i] = tostring(tonumber(a[1], a[2])) end
out[#out + 1] = select(2, pcall(tonumber, '1', 99))
return table.concat(out, ' ')
-- case: number literals in source
return tostring(0x10) .. ' ' .. tostring(1e2) .. ' ' .. tostring(.5) .. ' ' .. tostring(0xff) .. ' ' .. tostring(3e-2)
-- case: arithmetic
return table.concat({5.5 % 2, -5 % 3, 5 % -3, 2^0.5, 7 / 2, -7 / 2, 2^-1, (-2)^2, 1e308 * 10, -1e308 * 10, 5 % 0}, ' ')
-- case: math functions
local m = math
local t = {m.floor(3.7), m.floor(-3.5), m.ceil(-3.5), m.ceil(3.2), m.fmod(7, 3), m.fmod(-7, 3), m.fmod(7, -3),
  m.fmod(5.5, 2), m.pow(2, 0.5), m.pow(2, 10), m.sqrt(2), m.sin(1), m.cos(1), m.tan(1), m.asin(0.5),
  m.acos(0.5), m.atan(1), m.atan2(1, 2), m.atan2(-1, -2), m.exp(1), m.log(10), m.log10(1000), m.abs(-2),
  m.sinh(1), m.cosh(1), m.tanh(1), m.huge, -m.huge, m.pi, m.deg(m.pi), m.rad(180), m.max(1, 5, 3),
  m.min(4, 2, 8), m.ldexp(0.5, 4), m.ldexp(1, -1074), m.ldexp(1, 1024), m.log(0), m.sqrt(-1), m.fmod(1, 0),
  m.exp(710), m.exp(-1000), m.floor(-0.5), m.log(-1), m.pow(-8, 1/3), m.pow(0, -1)}
local out = {}
for i, x in ipairs(t) do out[i] = tostring(x) end
local f, e = m.frexp(8)
local fi, ff = m.modf(3.7)
local gi, gf = m.modf(-3.7)
local hi, hf = m.modf(1/0)
return table.concat(out, ' ') .. ' | ' .. f .. ' ' .. e .. ' ' .. fi .. ' ' .. ff .. ' ' .. gi .. ' ' .. gf
  .. ' ' .. hi .. ' ' .. hf .. ' ' .. table.concat({m.frexp(0)}, ',') .. ' ' .. table.concat({m.frexp(-3)}, ',')
-- case: math functions, all digits
local out = {}
for i, x in ipairs({math.sqrt(2), math.pow(2, 0.5), math.log(2), math.log10(2), math.sin(0.5),
  math.cos(0.5), math.tan(0.5), math.atan(0.5), math.pow(10, -3), math.fmod(10, 0.1), math.asin(0.3),
  math.acos(0.3), math.atan2(3, 4), math.sinh(0.5), math.cosh(0.5), math.tanh(0.5), math.exp(-1),
  math.log(10), math.pow(1.0001, 10000)}) do
  out[i] = string.format('%.17g', x)
end
return table.concat(out, ' ')
-- case: error messages with positions
local out = {}
local function try(f, ...) local ok, e = pcall(f, ...) out[#out + 1] = tostring(e) end
try(function() local x = nil; return x.y end)
try(function() local x = {} ; return x.a.b end)
try(function() return 1 + {} end)
try(function() return #nil end)
try(function() return 'a' < 1 end)
try(function() return {} < {} end)
try(function() local s = 'x' return s:nope() end)
try(function() error('boom') end)
try(function() error('boom', 0) end)
try(function() error('boom', 2) end)
try(function() error() end)
try(function() error(setmetatable({}, {__tostring = function() return 'custom' end})) end)
try(function() return ('x'):rep(1, 2, 3) .. nil end)
try(string.rep)
try(string.sub)
try(setmetatable, 1, {})
try(function() return math.floor('a') end)
try(function() local t = setmetatable({}, {__index = function(t, k) error('idx ' .. k) end}) return t.foo end)
try(function() return ('abc'):gsub('%w', function(c) error('in gsub ' .. c) end) end)
try(function() return string.find('abc', '[a') end)
try(function() return string.format('%d', {}) end)
try(function() return table.concat({1, {}, 3}) end)
try(function() return ipairs() end)
try(function() return select(0) end)
try(function() return unpack({}, 1, 1e7) end)
try(function() local a; a() end)
try(function() return coroutine.resume(1) end)
try(function() return tostring() end)
return table.concat(out, '\n')
-- case: syntax errors
local out = {}
for i, src in ipairs({'x = = 1', 'return (', 'local function', 'for i = 1 do end', 'x = "abc',
  'x = [[abc', 'return 1 +', 'a.b:c = 1', 'goto x', 'local x <const> = 1', 'return 0x', 'return 1e',
  'return 3..2', '\n\n  error here', 'break', 'return "\\300"'}) do
  local f, e = loadstring(src)
  out[i] = tostring(e)
end
local f, e = loadstring('x = = 1', '=mychunk')
out[#out + 1] = e
local f, e = loadstring('x = = 1', '@file.lua')
out[#out + 1] = e
return table.concat(out, '\n')
-- case: pcall and error across nested calls
local out = {}
local function lvl3() error({code = 42}) end
local function lvl2() lvl3() end
local function lvl1() local ok, e = pcall(lvl2) return ok, e.code end
local ok, code = lvl1()
out[#out + 1] = tostring(ok) .. ' ' .. code
out[#out + 1] = table.concat({tostring(pcall(pcall, error, 'x'))}, ' ')
out[#out + 1] = select('#', pcall(error))
local r = {pcall(pcall, pcall, error, 'deep')}
for i = 1, #r do r[i] = tostring(r[i]) end
out[#out + 1] = table.concat(r, ' ')
local ok, e = xpcall(function() error('a') end, function(m) return 'handled: ' .. m end)
out[#out + 1] = tostring(ok) .. ' ' .. e
local ok, e = xpcall(function() error('a') end, function(m) error('b') end)
out[#out + 1] = tostring(ok) .. ' ' .. tostring(e)
local ok, e = xpcall(function() local x = nil return x.y end, function(m) return 'tb: ' .. m end)
out[#out + 1] = e
local depth = 0
local function nest(n) if n == 0 then error('bottom') end local ok, e = pcall(nest, n - 1) depth = depth + 1 error(e, 0) end
local ok, e = pcall(nest, 150)
out[#out + 1] = depth .. ' ' .. e
-- Errors in a loop: the C stack pointer comes back each time.
local n = 0
for i = 1, 20000 do if not pcall(error, i) then n = n + 1 end end
out[#out + 1] = n
local ok, e = pcall(function() local t = {} for i = 1, 100 do t[i] = pcall(string.rep) end return #t end)
out[#out + 1] = tostring(ok) .. ' ' .. e
return table.concat(out, '\n')
-- case: coroutines, errors and yields
local out = {}
local co = coroutine.create(function() error('oops') end)
local ok, e = coroutine.resume(co)
out[#out + 1] = tostring(ok) .. '|' .. e .. '|' .. coroutine.status(co)
local ok, e = coroutine.resume(co)
out[#out + 1] = tostring(ok) .. '|' .. e
local gen = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) local c = coroutine.yield(b * 2) return c .. '!' end)
out[#out + 1] = gen(1) .. '|' .. gen(10) .. '|' .. gen('end')
out[#out + 1] = select(2, pcall(gen))
local co2 = coroutine.create(function()
  local ok, e = pcall(function() coroutine.yield(1) end)
  return tostring(ok) .. ' ' .. tostring(e)
end)
out[#out + 1] = table.concat({tostring(coroutine.resume(co2))}, ' ')
local co3 = coroutine.create(function()
  local ok, e = pcall(error, 'inner')
  coroutine.yield(e)
  error({msg = 'table error'})
end)
local _, y = coroutine.resume(co3)
local ok3, e3 = coroutine.resume(co3)
out[#out + 1] = y .. '|' .. tostring(ok3) .. '|' .. e3.msg .. '|' .. coroutine.status(co3)
local co4 = coroutine.wrap(function() error('wrapped') end)
out[#out + 1] = select(2, pcall(co4))
out[#out + 1] = select(2, pcall(coroutine.yield, 1))
local co5 = coroutine.create(function() return coroutine.running() end)
out[#out + 1] = type(select(2, coroutine.resume(co5)))
local ok, e = coroutine.resume(coroutine.create(function()
  local t = setmetatable({}, {__index = function() coroutine.yield() end}) return t.x end))
out[#out + 1] = tostring(ok) .. ' ' .. e
local producer = coroutine.create(function() for i = 1, 5 do coroutine.yield(i) end end)
local sum = 0
while true do local ok, v = coroutine.resume(producer) if not v then break end sum = sum + v end
out[#out + 1] = sum .. ' ' .. coroutine.status(producer)
local function deep(n) if n == 0 then coroutine.yield('deep') return 'done' end return deep(n - 1) end
local co6 = coroutine.create(function() return deep(5000) end)
out[#out + 1] = select(2, coroutine.resume(co6)) .. ' ' .. select(2, coroutine.resume(co6))
return table.concat(out, '\n')
-- case: deep recursion is an error, not a crash
local out = {}
local function f(n) return 1 + f(n + 1) end
local ok, e = pcall(f, 1)
out[#out + 1] = tostring(ok) .. ' ' .. e
local t = setmetatable({}, {__index = function(t, k) return t[k] end})
local ok, e = pcall(function() return t.x end)
out[#out + 1] = tostring(ok) .. ' ' .. e
local function g() return pcall(g) end
out[#out + 1] = table.concat({tostring(g())}, ' ')
local ok, e = pcall(loadstring, 'return ' .. string.rep('(', 300) .. '1' .. string.rep(')', 300))
out[#out + 1] = tostring(ok) .. ' ' .. tostring(e)
local src = 'local x = ' .. string.rep('{', 300) .. string.rep('}', 300)
out[#out + 1] = select(2, loadstring(src))
local co = coroutine.create(function() local function h() return 1 + h() end return h() end)
out[#out + 1] = table.concat({tostring(coroutine.resume(co))}, ' ')
local ok, e = pcall(string.rep, 'x', 100, 'y')
out[#out + 1] = tostring(ok) .. ' ' .. #e
local s = ''
local ok = pcall(function() local function r(n) if n > 0 then s = s .. 'a' return r(n - 1) end end r(20000) end)
out[#out + 1] = tostring(ok) .. ' ' .. #s
return table.concat(out, '\n')
-- case: string.rep and big strings
local a = string.rep('ab', 1e7)
local b = string.rep('x', 0) .. string.rep('x', -1) .. string.rep('', 1e9)
local c = table.concat({a, a})
return #a .. ' ' .. #b .. ' ' .. #c .. ' ' .. a:sub(-3) .. ' ' .. #string.rep('abc', 3e6) .. ' ' .. #(a .. a .. a)
  .. ' ' .. #string.rep('x', 2^32 + 2) .. ' ' .. #string.rep('y', 1e100)
-- case: string positions past 32 bits
return string.sub('hello', 2, 2^40) .. '|' .. string.sub('hello', -2^40, 3) .. '|' .. select('#', string.byte('abc', 2^32 + 1))
  .. '|' .. tostring((string.find('abc', 'b', 2^32 + 1))) .. '|' .. tostring((string.find('abc', 'c', -2^40)))
  .. '|' .. string.sub('hello', 2^32 + 2) .. '|' .. string.sub('hello', 2, 2^32 + 1)
-- case: garbage collection
local before = collectgarbage('count')
do local t = {} for i = 1, 100000 do t[i] = {i} end end
local during = collectgarbage('count')
collectgarbage()
local after = collectgarbage('count')
local weak = setmetatable({}, {__mode = 'k'})
weak[{}] = 1
collectgarbage('collect')
local n = 0 for _ in pairs(weak) do n = n + 1 end
local big = {}
for i = 1, 50 do big[i] = string.rep(tostring(i), 10000) end
local with_big = collectgarbage('count')
big = nil
collectgarbage()
local finalized = tostring(collectgarbage('count') < with_big - 900)
return tostring(during > 0) .. ' ' .. tostring(after < before + 100) .. ' ' .. n .. ' ' .. finalized
  .. ' ' .. type(collectgarbage('count')) .. ' ' .. collectgarbage('setpause', 200) .. ' ' .. collectgarbage('setstepmul', 200)
-- case: string library
local out = {}
out[#out + 1] = ('hello world'):gsub('o', '0')
out[#out + 1] = ('hello world'):find('wor')
out[#out + 1] = table.concat({('key=val; k2=v2'):match('(%w+)=(%w+)')}, ',')
local words = {} for w in ('one two  three'):gmatch('%a+') do words[#words + 1] = w end
out[#out + 1] = table.concat(words, ',')
out[#out + 1] = ('%d'):rep(3, 'x')
out[#out + 1] = ('AbC'):lower() .. ('AbC'):upper() .. ('abc'):reverse() .. ('abc'):len()
out[#out + 1] = table.concat({('abc'):byte(1, -1)}, ',') .. string.char(72, 105)
out[#out + 1] = ('  trim  '):match('^%s*(.-)%s*$') .. '|'
out[#out + 1] = ('x'):rep(3) .. ('abc'):sub(2) .. ('abc'):sub(-2, -2) .. ('abc'):sub(5) .. '|'
out[#out + 1] = (string.gsub('abc', '', '-'))
out[#out + 1] = (string.gsub('hello', '(l)(l)', '%2%1%0'))
out[#out + 1] = (string.gsub('$1.50', '%$(%d+)%.(%d+)', {['1'] = 'one'}))
out[#out + 1] = tostring(string.find('a.b', '.', 1, true)) .. tostring(string.find('abc', '[%a]+$'))
out[#out + 1] = string.format('%5.1f%%', 99.44) .. tostring(('x'):find('')) .. tostring(('%a'):match('%%a'))
out[#out + 1] = table.concat({string.byte('\255\0\1', 1, 3)}, ',') .. (string.gsub('a,b,,c', ',', ';', 2))
out[#out + 1] = string.format('%s %s', string.find('abcabc', 'b', -3)) .. ' ' .. ('x'):rep(0) .. '|'
return table.concat(out, '\n')
-- case: table library and base functions
local out = {}
local t = {5, 2, 8, 1, 9}
table.sort(t)
out[#out + 1] = table.concat(t, ',')
table.sort(t, function(a, b) return a > b end)
out[#out + 1] = table.concat(t, ',')
table.insert(t, 1, 0) table.insert(t, 7) out[#out + 1] = table.concat(t, ',') .. ' ' .. table.remove(t) .. ' ' .. table.remove(t, 1)
out[#out + 1] = #t .. ' ' .. table.maxn({1, 2, [10] = 3}) .. ' ' .. select('#', unpack({1, 2, 3}))
out[#out + 1] = tostring(rawequal(t, t)) .. tostring(rawget(t, 1)) .. type(next({})) .. tostring(next({}, nil))
out[#out + 1] = table.concat({select(2, 'a', 'b', 'c')}, ',') .. select(-1, 'a', 'b', 'c')
out[#out + 1] = tostring(tonumber('z', 36)) .. ' ' .. type(pairs) .. ' ' .. tostring(nil) .. ' ' .. tostring(true)
local mt = {__add = function(a, b) return 'added' end, __concat = function() return 'cc' end, __len = function() return 7 end,
  __call = function(self, x) return 'called ' .. x end, __eq = function() return true end, __lt = function() return true end}
local a, b = setmetatable({}, mt), setmetatable({}, mt)
out[#out + 1] = (a + 1) .. ' ' .. (a .. 'x') .. ' ' .. a(5) .. ' ' .. tostring(a == b) .. ' ' .. tostring(a < b)
local s = 0 for i = 10, 1, -3 do s = s + i end
local ss = 0 for i = 0.1, 1, 0.1 do ss = ss + 1 end
out[#out + 1] = s .. ' ' .. ss .. ' ' .. #{1, 2, nil, 4}
out[#out + 1] = string.format('%q', string.dump and 'dump' or 'none') .. ' ' .. tostring(loadstring(string.dump(function() end)))
local f = loadstring('return 5, ...')
out[#out + 1] = table.concat({f(6, 7)}, ' ')
out[#out + 1] = select(2, pcall(table.sort, {3, 1, 'x'}))
return table.concat(out, '\n')
