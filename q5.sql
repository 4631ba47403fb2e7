SELECT length('\x0102'::bytea);
